package server

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// The tracking scripts run against redis-server and ruvio, and the frames
// every connection receives must be the same, pushes included. A line is
// "conn> command" (send, read the reply), "conn>! command" (send, read the
// reply without recording it: HELLO's server details), "conn<" (read
// one more frame: a push), "conn= " (CLIENT ID, remembered as $conn for
// later commands and replaced by $conn in what is recorded) or
// "conn? command => reply" (send until the reply is the one given:
// waiting for an expiry; the test fails if it has not come in 5s).
// "conn." closes the connection; "conn% command | fields" records only
// the named fields of a CLIENT INFO or INFO reply;
// "conn| n command ; command ..." sends a pipeline and reads n frames. $_ stands for
// the last bulk string a command was answered with (a DUMP payload).
var trackingScripts = []struct {
	name  string
	lines []string
}{
	{"errors", []string{
		"a> CLIENT TRACKING on prefix a",
		"a> CLIENT TRACKING on bcast prefix a prefix ab",
		"a> CLIENT TRACKING on bcast prefix b prefix c prefix bc",
		"a> CLIENT TRACKING on bcast optin",
		"a> CLIENT TRACKING on bcast optout",
		"a> CLIENT TRACKING on optin optout",
		"a> CLIENT TRACKING on redirect 999999",
		"a> CLIENT TRACKING on redirect abc",
		"a> CLIENT TRACKING on redirect 0",
		"a> CLIENT TRACKING maybe",
		"a> CLIENT TRACKING on foo",
		"a> CLIENT TRACKING on redirect",
		"a> CLIENT TRACKING on prefix",
		"a> CLIENT TRACKING",
		"a> CLIENT CACHING yes",
		"a> CLIENT CACHING no",
		"a> CLIENT CACHING maybe",
		"a> CLIENT CACHING",
		"a> CLIENT CACHING yes no",
		"a> CLIENT GETREDIR x",
		"a> CLIENT TRACKINGINFO x",
		"a> CLIENT TRACKING on",
		"a> CLIENT CACHING yes",
		"a> CLIENT CACHING no",
		"a> CLIENT TRACKING on bcast",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on optin",
		"a> CLIENT TRACKING on optout",
		"a> CLIENT CACHING no",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on bcast prefix b",
		"a> CLIENT TRACKING on bcast prefix bx",
		"a> CLIENT TRACKING on bcast prefix c prefix d",
		"a> CLIENT TRACKING on",
		"a> CLIENT TRACKINGINFO",
		"b= ",
		"a> CLIENT TRACKING on redirect $b redirect $b",
		"a> CLIENT TRACKING off foo",
		"a> CLIENT TRACKING off bcast noloop",
		"a> CLIENT TRACKINGINFO",
	}},
	{"info", []string{
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT GETREDIR",
		"a> CLIENT TRACKING on",
		"a> CLIENT GETREDIR",
		"a> CLIENT TRACKINGINFO",
		"b= ",
		"a> CLIENT TRACKING on optin noloop redirect $b",
		"a> CLIENT GETREDIR",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT CACHING yes",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT TRACKING off",
		"a> CLIENT GETREDIR",
		"a> CLIENT TRACKING on optout",
		"a> CLIENT CACHING no",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on bcast prefix x prefix a noloop",
		"a> CLIENT TRACKING on bcast prefix m",
		"a> CLIENT TRACKINGINFO",
		"a>! HELLO 3",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT TRACKING on bcast",
		"a> CLIENT TRACKINGINFO",
	}},
	{"default resp3", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on",
		"a> GET k",
		"a> MGET {k}2 {k}3",
		"a> GET nokey",
		"b> SET k 1",
		"a<",
		"b> SET k 2",
		"b> MSET {k}2 x {k}3 y",
		"a<",
		"a<",
		"b> SET nokey 1",
		"a<",
		"a> GET k",
		"a> SET k mine",
		"a<",
		"a> HGET h f",
		"b> HSET h f v",
		"a<",
		"a> STRLEN s",
		"a> LRANGE l 0 -1",
		"b> APPEND s x",
		"a<",
		"b> RPUSH l x",
		"a<",
		"a> GET {r}1",
		"a> GET {r}2",
		"b> SET {r}1 v",
		"a<",
		"b> RENAME {r}1 {r}2",
		"a<",
		"a> GET d",
		"b> SET d 1",
		"a<",
		"a> EXISTS d",
		"b> DEL d",
		"a<",
		"a> GET k",
		"b> DUMP k",
		"b> FLUSHALL",
		"a<",
		"b> SET k 1",
		"a> GET k",
		"b> FLUSHDB",
		"a<",
		"a> CLIENT TRACKING off",
		"a> GET k",
		"b> SET k 2",
		"a> CLIENT TRACKING on",
		"a> GET k",
		"b> SET k 3",
		"a<",
	}},
	{"multi", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on",
		"a> MULTI",
		"a> GET {t}1",
		"a> GET {t}2",
		"a> EXEC",
		"b> MSET {t}1 1 {t}2 2",
		"a<",
		"a<",
	}},
	{"restore", []string{
		"a>! HELLO 3",
		"b> SET src v",
		"b>! DUMP src",
		"a> CLIENT TRACKING on",
		"a> GET dst",
		"b> RESTORE dst 0 $_",
		"a<",
	}},
	{"optin optout", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on optin",
		"a> GET {o}1",
		"a> CLIENT CACHING yes",
		"a> GET {o}2",
		"a> GET {o}3",
		"b> MSET {o}1 1 {o}2 1 {o}3 1",
		"a<",
		"a> CLIENT CACHING yes",
		"a> MULTI",
		"a> GET {m}1",
		"a> GET {m}2",
		"a> EXEC",
		"b> MSET {m}1 1 {m}2 1",
		"a<",
		"a<",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on optout",
		"a> GET {p}1",
		"a> CLIENT CACHING no",
		"a> GET {p}2",
		"a> GET {p}3",
		"b> MSET {p}1 1 {p}2 1 {p}3 1",
		"a<",
		"a<",
	}},
	{"own writes pipelined", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on",
		"a| 5 GET pk ; GET {pk}2 ; SET pk 1 ; DEL {pk}2 ; PING",
		"a| 2 GET pk ; PING",
		"a| 6 MULTI ; SET pk 2 ; GET {pk}2 ; EXEC ; PING ; PING",
		"b> SET {pk}2 x",
		"a<",
		"a<",
		"a> PING",
	}},
	{"noloop", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on noloop",
		"a> GET n1",
		"a> GET n2",
		"a> SET n1 mine",
		"b> SET n2 theirs",
		"a<",
		"a> GET n1",
		"a> DEL n1",
		"b> SET n1 theirs",
		"a> PING",
	}},
	{"scripts", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on",
		"a> EVAL return(redis.call('GET',KEYS[1])) 1 s1",
		"b> SET s1 x",
		"a<",
		"a> EVAL_RO return(redis.call('GET',KEYS[1])) 1 s2",
		"b> SET s2 y",
		"a<",
		"a> EVAL return(redis.call('SET',KEYS[1],'z')) 1 s2",
		"a> PING",
	}},
	{"noloop scripts", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on noloop",
		"a> GET s3",
		"a> EVAL return(redis.call('SET',KEYS[1],'mine')) 1 s3",
		"a> PING",
		"b> SET s3 theirs",
		"a> GET s3",
		"b> SET s3 again",
		"a<",
		"a> PING",
	}},
	{"bcast", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on bcast prefix a prefix b",
		"b> MSET b{t}2 1 a{t}1 1 a{t}0 1 x{t} 1 b{t}1 1",
		"a<",
		"a<",
		"b> SET x 2",
		"b> DEL a{t}1 a{t}0",
		"a<",
		"a> SET b1 mine",
		"a<",
		"c>! HELLO 3",
		"c> CLIENT TRACKING on bcast noloop",
		"c> SET y mine",
		"b> SET y theirs",
		"c<",
		"c> CLIENT TRACKING off",
		"b> SET y again",
		"b> SET a9 1",
		"a<",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on bcast prefix q",
		"b> SET a9 2",
		"b> SET q1 2",
		"a<",
	}},
	{"redirect resp2", []string{
		"r= ",
		"r> SUBSCRIBE __redis__:invalidate",
		"a> CLIENT TRACKING on redirect $r",
		"a> GET k",
		"a> GET k2",
		"b> SET k 1",
		"r<",
		"b> FLUSHALL",
		"r<",
		"a> CLIENT TRACKING on bcast redirect $r prefix p",
		"a> CLIENT TRACKING off",
		"a> CLIENT TRACKING on bcast redirect $r prefix p",
		"b> MSET p{t}1 1 p{t}2 1 z{t} 1",
		"r<",
		"a> GET k",
	}},
	{"redirect resp3 target", []string{
		"r>! HELLO 3",
		"r= ",
		"a> CLIENT TRACKING on redirect $r",
		"a> GET k",
		"b> SET k 1",
		"r<",
		"a> CLIENT TRACKINGINFO",
	}},
	{"redirect broken", []string{
		"r= ",
		"a>! HELLO 3",
		"a> CLIENT TRACKING on redirect $r",
		"a> GET {k}",
		"a> GET {k}2",
		"r.",
		"b? CLIENT KILL ID $r => :0",
		"b> MSET {k} 1 {k}2 1",
		"a<",
		"a<",
		"a> CLIENT TRACKINGINFO",
		"a> CLIENT GETREDIR",
		"a> CLIENT TRACKING on",
		"a> CLIENT TRACKINGINFO",
	}},
	{"client list and info", []string{
		"r= ",
		"r> SUBSCRIBE __redis__:invalidate",
		"a= ",
		"a% CLIENT INFO | flags redir",
		"a> CLIENT TRACKING on redirect $r",
		"a% CLIENT INFO | flags redir",
		"a> GET k",
		"a> GET k2",
		"b>! HELLO 3",
		"b= ",
		"b> CLIENT TRACKING on bcast prefix x prefix y",
		"b% CLIENT INFO | flags redir",
		"c> CLIENT TRACKING on bcast",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
		"c> CLIENT TRACKING off",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
		"r.",
		"c? CLIENT KILL ID $r => :0",
		"c> SET k 1",
		"a% CLIENT INFO | flags redir",
		"c% CLIENT LIST ID $a | flags redir",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
		"c> SET x1 1",
		"b<",
		"a> CLIENT TRACKING off",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
		"c> SET k2 1",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
		"b.",
		"c? CLIENT KILL ID $b => :0",
		"c% INFO | tracking_clients tracking_total_keys tracking_total_items tracking_total_prefixes",
	}},
	{"expiry", []string{
		"a>! HELLO 3",
		"a> CLIENT TRACKING on",
		"b> SET e1 v PX 100",
		"a> GET e1",
		"a<",
		"b> DEBUG SET-ACTIVE-EXPIRE 0",
		"b> SET e2 v PX 100",
		"b> SET e3 v PX 100000",
		"a> GET e2",
		"a> GET e3",
		"b? EXISTS e2 => :0",
		"a<",
		"b> PEXPIRE e3 1",
		"a<",
		"b> DEBUG SET-ACTIVE-EXPIRE 1",
	}},
}

// trackSide is one server the scripts run against.
type trackSide struct {
	t     *testing.T
	addr  string
	conns map[string]*trackConn
	ids   map[string]string // conn name → its CLIENT ID
	last  string            // the last bulk string reply
	out   []string
}

type trackConn struct {
	nc net.Conn
	br *bufio.Reader
}

func (s *trackSide) conn(name string) *trackConn {
	if c := s.conns[name]; c != nil {
		return c
	}
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	c := &trackConn{nc: nc, br: bufio.NewReader(nc)}
	s.conns[name] = c
	return c
}

func (s *trackSide) close() {
	for _, c := range s.conns {
		c.nc.Close()
	}
}

// command encodes a script command; $name stands for a connection's id.
func (s *trackSide) command(text string) []byte {
	args := strings.Fields(text)
	words := make([]any, len(args))
	for i, a := range args {
		words[i] = a
	}
	noteExercised(words)
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		if a == "$_" {
			a = s.last
		} else if strings.HasPrefix(a, "$") {
			if id, ok := s.ids[a[1:]]; ok {
				a = id
			}
		}
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	return b
}

// frame reads one RESP value (any type, nested) as its raw text.
func (s *trackSide) frame(c *trackConn) string {
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	if err := readFrame(c.br, &b); err != nil {
		return "TIMEOUT/ERROR " + err.Error() + " after " + strconv.Quote(b.String())
	}
	f := b.String()
	if head, body, ok := strings.Cut(f, "\r\n"); ok && strings.HasPrefix(head, "$") && head != "$-1" {
		s.last = strings.TrimSuffix(body, "\r\n")
	}
	return f
}

func readFrame(br *bufio.Reader, b *strings.Builder) error {
	line, err := br.ReadString('\n')
	b.WriteString(line)
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short line %q", line)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=', '!':
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(br, buf); err != nil {
			return err
		}
		b.Write(buf)
	case '*', '~', '>':
		for i := 0; i < n; i++ {
			if err := readFrame(br, b); err != nil {
				return err
			}
		}
	case '%', '|':
		for i := 0; i < 2*n; i++ {
			if err := readFrame(br, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func ioReadFull(br *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := br.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// normalize replaces client ids by their names, which differ between
// the two servers.
func (s *trackSide) normalize(f string) string {
	for name, id := range s.ids {
		f = strings.ReplaceAll(f, ":"+id+"\r\n", ":$"+name+"\r\n")
	}
	return f
}

// pickFields finds fields in a CLIENT LIST style (k=v) or INFO style
// (k:v) reply, rendered as "k=v ..." with client ids as ":id".
func pickFields(reply string, fields []string) string {
	var out []string
	for _, tok := range strings.FieldsFunc(reply, func(r rune) bool { return r == ' ' || r == '\r' || r == '\n' }) {
		for _, f := range fields {
			if v, ok := strings.CutPrefix(tok, f+"="); ok {
				out = append(out, f+"=:"+v+"\r\n")
			} else if v, ok := strings.CutPrefix(tok, f+":"); ok {
				out = append(out, f+"="+v)
			}
		}
	}
	return strings.Join(out, " ")
}

// run plays a script and returns what every connection received.
func (s *trackSide) run(lines []string) string {
	s.conns, s.ids, s.out = map[string]*trackConn{}, map[string]string{}, nil
	defer s.close()
	for _, l := range lines {
		name, op, rest := l[:1], l[1:2], strings.TrimPrefix(l[2:], " ")
		c := s.conn(name)
		switch {
		case op == "=":
			c.nc.Write(s.command("CLIENT ID"))
			f := s.frame(c)
			s.ids[name] = strings.TrimSpace(strings.TrimPrefix(f, ":"))
		case op == ".":
			c.nc.Close()
			delete(s.conns, name)
		case op == "<":
			s.out = append(s.out, l+" => "+strconv.Quote(s.normalize(s.frame(c))))
		case op == "?":
			cmd, want, _ := strings.Cut(rest, " => ")
			got := ""
			poll.UntilNil(s.t, 5*time.Second, fmt.Sprintf("%s on %s to answer %s", cmd, s.addr, want), func() error {
				c.nc.Write(s.command(cmd))
				if got = strings.TrimSpace(s.frame(c)); got != want {
					return fmt.Errorf("the last reply was %s", got)
				}
				return nil
			})
			s.out = append(s.out, l+" => "+got)
		case op == "|":
			// "conn| n cmd ; cmd ...": a pipeline, then n frames.
			count, cmds, _ := strings.Cut(rest, " ")
			n, _ := strconv.Atoi(count)
			var buf []byte
			for _, cmd := range strings.Split(cmds, ";") {
				buf = append(buf, s.command(strings.TrimSpace(cmd))...)
			}
			c.nc.Write(buf)
			for range n {
				s.out = append(s.out, l+" => "+strconv.Quote(s.normalize(s.frame(c))))
			}
		case op == "%":
			cmd, fields, _ := strings.Cut(rest, " | ")
			c.nc.Write(s.command(cmd))
			s.out = append(s.out, l+" => "+strconv.Quote(s.normalize(pickFields(s.frame(c), strings.Fields(fields)))))
		case strings.HasPrefix(rest, "!"):
			c.nc.Write(s.command(rest[1:]))
			s.frame(c)
		default:
			c.nc.Write(s.command(rest))
			s.out = append(s.out, l+" => "+strconv.Quote(s.normalize(s.frame(c))))
		}
	}
	return strings.Join(s.out, "\n")
}

func TestTrackingMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	redisAddr := r.Options().Addr
	for _, shards := range []int{1, 3} {
		s := startServer(t, func(c *config.Config) { c.Shards = shards })
		for _, sc := range trackingScripts {
			t.Run(fmt.Sprintf("%s/%d shards", sc.name, shards), func(t *testing.T) {
				for _, side := range []string{redisAddr, s.Addr(0)} {
					cl := &trackSide{t: t, addr: side}
					cl.run([]string{"x> FLUSHALL"})
				}
				want := (&trackSide{t: t, addr: redisAddr}).run(sc.lines)
				have := (&trackSide{t: t, addr: s.Addr(0)}).run(sc.lines)
				if want != have {
					t.Fatalf("transcripts differ\nredis:\n%s\n\nruvio:\n%s\n\n%s", want, have, firstDiff(want, have))
				}
			})
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("first difference at line %d:\nredis: %q\nruvio: %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("one is longer: %d vs %d lines", len(al), len(bl))
}
