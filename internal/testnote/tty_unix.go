//go:build unix

package testnote

// ttyPath is the controlling terminal.
const ttyPath = "/dev/tty"
