//go:build unix

package datadir

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// processAlive asks the kernel whether pid exists (signal 0 checks
// without sending anything). A zombie (killed, not yet reaped by its
// parent) exists but holds nothing: it is not alive.
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	if err == nil || errors.Is(err, syscall.EPERM) {
		return !zombie(pid), true
	}
	return false, errors.Is(err, syscall.ESRCH)
}

// zombie reads the process state from /proc/PID/stat (Linux; elsewhere
// there is no such file and a process that exists counts as alive).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "PID (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
