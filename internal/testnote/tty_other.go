//go:build !unix

package testnote

// ttyPath is the console.
const ttyPath = "CONOUT$"
