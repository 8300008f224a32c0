//go:build !unix

package scraper

// processAlive cannot tell on this OS; the lock's age decides.
func processAlive(int) (alive, known bool) { return false, false }
