//go:build !unix

package server

// cpuInfo is INFO's CPU section; without getrusage it has only ruvio's
// own lines.
func cpuInfo() [][2]string { return nil }
