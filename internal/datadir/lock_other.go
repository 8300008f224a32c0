//go:build !unix

package datadir

// processAlive cannot tell on this OS; the lock's age decides.
func processAlive(int) (alive, known bool) { return false, false }
