package local

import (
	"bufio"
	bo "encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// socketOwner tells which of the processes pids holds the other end of
// conn, a TCP connection accepted on this machine over loopback: it finds
// the peer socket's inode in /proc/net/tcp (the entry whose local address
// is conn's remote one and the other way round), then the process with a
// descriptor on that inode. It returns "" when none of pids has it (the
// harness itself, or a process that already closed it).
func socketOwner(conn net.Conn, pids map[int]string) (string, error) {
	local, ok1 := conn.LocalAddr().(*net.TCPAddr)
	remote, ok2 := conn.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("not a TCP connection: %v", conn.RemoteAddr())
	}
	inode, err := socketInode(remote, local)
	if err != nil {
		return "", err
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for pid, name := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(dir + "/" + fd.Name()); err == nil && link == want {
				return name, nil
			}
		}
	}
	return "", nil
}

// socketInode finds the inode of the TCP socket bound to local and
// connected to remote in /proc/net/tcp or /proc/net/tcp6.
func socketInode(local, remote *net.TCPAddr) (uint64, error) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		inode, err := findInode(table, local, remote)
		if err == nil && inode != 0 {
			return inode, nil
		}
	}
	return 0, fmt.Errorf("no socket %s -> %s in /proc/net/tcp", local, remote)
}

func findInode(table string, local, remote *net.TCPAddr) (uint64, error) {
	f, err := os.Open(table)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	v6 := strings.HasSuffix(table, "6")
	wantLocal, wantRemote := procAddr(local, v6), procAddr(remote, v6)
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[1] != wantLocal || fields[2] != wantRemote {
			continue
		}
		return strconv.ParseUint(fields[9], 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("not found")
}

// procAddr spells a TCP address as /proc/net/tcp{,6} does: the address as
// 32-bit words in host (little-endian) order, in hex, then the port. In
// tcp6 an IPv4 address is IPv4-mapped.
func procAddr(a *net.TCPAddr, v6 bool) string {
	ip := a.IP.To16()
	if !v6 {
		ip = a.IP.To4()
	}
	var b strings.Builder
	for i := 0; i+4 <= len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", bo.LittleEndian.Uint32(ip[i:i+4]))
	}
	return fmt.Sprintf("%s:%04X", b.String(), a.Port)
}
