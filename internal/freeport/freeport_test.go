package freeport

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

func TestRunsNeverOverlapWithinAProcess(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		base, err := Take(3)
		if err != nil {
			t.Fatal(err)
		}
		for p := base; p < base+3; p++ {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

func TestARunWithAPortInUseIsNotBindable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	if bindable("127.0.0.1", busy-1, 3) {
		t.Fatalf("the run %d..%d holds port %d, which is listened on", busy-1, busy+1, busy)
	}
}

// helperEnv makes the test binary, run again as a child, be
// TestHelperProcess: it draws the runs the variable names ("runs,n"),
// prints their bases and holds them until its stdin closes.
const helperEnv = "FREEPORT_HELPER"

func TestHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		return
	}
	var runs, n int
	if _, err := fmt.Sscanf(spec, "%d,%d", &runs, &n); err != nil {
		t.Fatal(err)
	}
	for range runs {
		base, err := Take(n)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(base)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
}

// testBinary runs this test binary again with args. The race detector
// would hold each child for a second at its exit.
func testBinary(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return cmd
}

// child starts a process that draws runs runs of n ports and holds them;
// exit closes its stdin and waits for it to end.
func child(t *testing.T, runs, n int) (pid int, bases []int, exit func()) {
	t.Helper()
	cmd := testBinary("-test.run=^TestHelperProcess$")
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d,%d", helperEnv, runs, n))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exit = sync.OnceFunc(func() {
		in.Close()
		io.Copy(io.Discard, out)
		cmd.Wait()
	})
	t.Cleanup(exit)
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "ready" {
		base, err := strconv.Atoi(lines.Text())
		if err != nil {
			rest, _ := io.ReadAll(out)
			t.Fatalf("child: %s\n%s", lines.Text(), rest)
		}
		bases = append(bases, base)
	}
	if len(bases) != runs {
		t.Fatalf("child drew %d runs of %d, not %d", len(bases), n, runs)
	}
	return cmd.Process.Pid, bases, exit
}

func TestPortsAnotherProcessDrewAreNotHandedOut(t *testing.T) {
	if claimDir() == "" {
		t.Skip("no directory for claims")
	}
	_, bases, _ := child(t, 100, 10)
	held := map[int]bool{}
	for _, b := range bases {
		for p := b; p < b+10; p++ {
			held[p] = true
		}
	}
	for range 100 {
		base, err := Find("127.0.0.1", 10, func(int) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		for p := base; p < base+10; p++ {
			if held[p] {
				t.Fatalf("port %d handed out here and to the child", p)
			}
		}
	}
	// Draws among the child's ports only: a score of its thousand are
	// tried, and each must be refused.
	if p, err := Find("127.0.0.1", 1, func(p int) bool { return !held[p] }); err == nil {
		t.Fatalf("port %d handed out here and to the child", p)
	}
}

// claimFile writes a claim of port p in dir for process pid.
func claimFile(t *testing.T, dir string, p, pid int) string {
	t.Helper()
	name := filepath.Join(dir, strconv.Itoa(p))
	if err := os.WriteFile(name, []byte(strconv.Itoa(pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func claimant(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// endedPID is the PID of a process that has ended.
func endedPID(t *testing.T) int {
	t.Helper()
	cmd := testBinary("-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestAClaimOfAnEndedProcessIsReclaimed(t *testing.T) {
	dir := t.TempDir()
	name := claimFile(t, dir, Low, endedPID(t))
	if ok, _ := claim(dir, os.Getpid(), Low, 1); !ok {
		t.Fatal("the claim of an ended process was not reclaimed")
	}
	if pid := claimant(t, name); pid != os.Getpid() {
		t.Fatalf("the claim holds PID %d, not this process's %d", pid, os.Getpid())
	}
}

func TestAClaimOfARunningProcessIsRespected(t *testing.T) {
	pid, bases, exit := child(t, 1, 3)
	if claimDir() != "" {
		if ok, _ := claim(claimDir(), os.Getpid(), bases[0], 3); ok {
			t.Fatal("the child's run was claimed here too")
		}
		if got := claimant(t, filepath.Join(claimDir(), strconv.Itoa(bases[0]+1))); got != pid {
			t.Fatalf("the child's claim holds PID %d, not the child's %d", got, pid)
		}
	}
	// The same, in a directory where the claim outlives the child.
	dir := t.TempDir()
	name := claimFile(t, dir, Low, pid)
	if ok, _ := claim(dir, os.Getpid(), Low, 1); ok {
		t.Fatal("the claim of a running process was taken over")
	}
	if got := claimant(t, name); got != pid {
		t.Fatalf("the claim holds PID %d, not the child's %d", got, pid)
	}
	exit()
	if ok, _ := claim(dir, os.Getpid(), Low, 1); !ok {
		t.Fatal("the claim was not reclaimed once its process ended")
	}
}

func TestARunIsClaimedWhollyOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	claimFile(t, dir, Low+1, 1) // init's: always running
	if ok, _ := claim(dir, os.Getpid(), Low, 3); ok {
		t.Fatal("a run holding a port another process claimed was claimed")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d files left in the claims directory, not 1", len(entries))
	}
	ok, release := claim(dir, os.Getpid(), Low+2, 3)
	if !ok {
		t.Fatal("a free run was not claimed")
	}
	// Whether this process still uses its own claims is for its taken to
	// say: they do not count against it.
	if ok, _ := claim(dir, os.Getpid(), Low+2, 3); !ok {
		t.Fatal("a run this process claimed was refused to it")
	}
	release()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files left after release, not 1", len(entries))
	}
}

// TestOnlyOneDrawReclaimsAStaleClaim races draws of several running
// processes (PIDs taken from /proc, each draw acting as one of them) for
// one stale claim.
func TestOnlyOneDrawReclaimsAStaleClaim(t *testing.T) {
	dir, ended := t.TempDir(), endedPID(t)
	contenders := runningPIDs(t, 8)
	for round := range 50 {
		p := Low + round
		claimFile(t, dir, p, ended)
		var wg sync.WaitGroup
		var won atomic.Int32
		for _, self := range contenders {
			wg.Go(func() {
				if ok, _ := claim(dir, self, p, 1); ok {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("port %d reclaimed by %d draws", p, won.Load())
		}
	}
}

func TestDrawsGoOnWithoutAClaimsDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", filepath.Join(file, "claims")} {
		if ok, _ := claim(dir, os.Getpid(), Low, 3); !ok {
			t.Fatalf("no run claimed in %q", dir)
		}
	}
}

// runningPIDs returns n PIDs of running processes other than this one.
func runningPIDs(t *testing.T, n int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() && running(pid) {
			pids = append(pids, pid)
		}
		if len(pids) == n {
			return pids
		}
	}
	t.Skipf("only %d running processes", len(pids))
	return nil
}
