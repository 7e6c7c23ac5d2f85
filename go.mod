module github.com/agview/agview

go 1.26
