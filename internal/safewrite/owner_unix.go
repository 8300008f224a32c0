//go:build unix

package safewrite

import (
	"io/fs"
	"os"
	"syscall"
)

// fileOwner is a regular file's owner and its number of hard links.
func fileOwner(st fs.FileInfo) (uid, gid, links int, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 1, false
	}
	return int(s.Uid), int(s.Gid), int(s.Nlink), true
}

// keepOwner gives the new file name the owner of the file it replaces;
// it fails (EPERM) where only root may give a file away.
func keepOwner(name string, st fs.FileInfo) error {
	uid, gid, _, ok := fileOwner(st)
	if !ok || uid == os.Getuid() && gid == os.Getgid() {
		return nil
	}
	return os.Lchown(name, uid, gid)
}
