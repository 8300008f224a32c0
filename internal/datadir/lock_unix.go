//go:build unix

package datadir

import (
	"errors"
	"syscall"
)

// processAlive asks the kernel whether pid exists (signal 0 checks
// without sending anything).
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	if err == nil || errors.Is(err, syscall.EPERM) {
		return true, true
	}
	return false, errors.Is(err, syscall.ESRCH)
}
