package script

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// The cjson library as Redis ships it (lua-cjson with Redis's
// settings): numbers encode as %.14g, an empty table as {}, a table is an
// array when its keys are 1..n (holes become null unless the array is
// excessively sparse), strings escape '/' too, and JSON null decodes to
// cjson.null. Errors are lua-cjson's texts.

func init() { libraries["cjson"] = openCJSON }

// jsonNull is cjson.null, a light userdata in lua-cjson; here one
// userdata every state shares.
var jsonNull = &lua.LUserData{}

func openCJSON(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	cfg := defaultCJSON()
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "encode", "expected 1 argument")
		}
		var b strings.Builder
		jsonEncode(L, cfg, &b, L.Get(1), 0)
		L.Push(lua.LString(b.String()))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "decode", "expected 1 argument")
		}
		s := checkString(L, 1, "decode")
		d := &jsonDecoder{L: L, cfg: cfg, s: s}
		v := d.value(d.next(), 0)
		if tok := d.next(); tok.kind != tEnd {
			d.fail("the end", tok)
		}
		L.Push(v)
		return 1
	}))
	cfg.register(L, t)
	t.RawSetString("null", jsonNull)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// checkString is luaL_checkstring with Lua 5.1's error text.
func checkString(L *lua.LState, i int, fn string) string {
	switch v := L.Get(i).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return formatG(float64(v), 14)
	}
	argError(L, i, fn, "string expected, got "+typeName(L, i))
	return ""
}

func jsonEncode(L *lua.LState, cfg *cjsonConfig, b *strings.Builder, v lua.LValue, depth int) {
	switch x := v.(type) {
	case lua.LString:
		jsonString(b, string(x))
	case lua.LNumber:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			switch cfg.encodeInvalid {
			case invalidOff:
				libError(L, "Cannot serialise number: must not be NaN or Inf")
			case invalidNull:
				b.WriteString("null")
				return
			}
			if math.IsNaN(f) {
				b.WriteString("nan")
				return
			}
		}
		b.WriteString(formatG(f, cfg.precision))
	case lua.LBool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case *lua.LNilType:
		b.WriteString("null")
	case *lua.LTable:
		depth++
		if depth > cfg.encodeMaxDepth {
			libError(L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		n := jsonArrayLen(L, cfg, x)
		if n == 0 {
			b.WriteString("{}")
			return
		}
		if n > 0 {
			b.WriteByte('[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				jsonEncode(L, cfg, b, x.RawGetInt(i), depth)
			}
			b.WriteByte(']')
			return
		}
		b.WriteByte('{')
		first := true
		inOrder(x, func(k, e lua.LValue) {
			if !first {
				b.WriteByte(',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LString:
				jsonString(b, string(kk))
			case lua.LNumber:
				b.WriteString(`"` + formatG(float64(kk), cfg.precision) + `"`)
			default:
				libError(L, "Cannot serialise %s: table key must be a number or string", k.Type().String())
			}
			b.WriteByte(':')
			jsonEncode(L, cfg, b, e, depth)
		})
		b.WriteByte('}')
	default:
		if v == jsonNull {
			b.WriteString("null")
			return
		}
		libError(L, "Cannot serialise %s: type not supported", v.Type().String())
	}
}

// jsonArrayLen is the length of t as an array, -1 when it is an
// object: every key a positive integer, and not excessively sparse
// (largest index over ratio times the count and over safe, 2 and 10
// unless encode_sparse_array says otherwise; such an array is an error,
// or an object when set to convert).
func jsonArrayLen(L *lua.LState, cfg *cjsonConfig, t *lua.LTable) int {
	maxIdx, items := 0, 0
	object := false
	inOrder(t, func(k, _ lua.LValue) {
		n, ok := k.(lua.LNumber)
		if !ok || float64(n) != math.Floor(float64(n)) || n < 1 {
			object = true
			return
		}
		maxIdx = max(maxIdx, int(n))
		items++
	})
	if object {
		return -1
	}
	if cfg.sparseRatio > 0 && maxIdx > items*cfg.sparseRatio && maxIdx > cfg.sparseSafe {
		if !cfg.sparseConvert {
			libError(L, "Cannot serialise table: excessively sparse array")
		}
		return -1
	}
	return maxIdx
}

func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// JSON tokens, named as lua-cjson names them in errors.
const (
	tObjBegin = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
)

var tokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER",
	"T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR"}

type jsonToken struct {
	kind  int
	index int // byte offset where the token (or its error) is
	str   string
	num   float64
	b     bool
	err   string
}

type jsonDecoder struct {
	L   *lua.LState
	cfg *cjsonConfig
	s   string
	pos int
}

func (d *jsonDecoder) fail(expected string, tok jsonToken) {
	found := tokenNames[tok.kind]
	if tok.kind == tError {
		found = tok.err
	}
	libError(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

// strtodPrefix matches what C's strtod reads: decimal and hexadecimal
// numbers, inf and nan.
var strtodPrefix = regexp.MustCompile(`^[-+]?(0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][-+]?[0-9]+)?|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|(?i:infinity|inf|nan))`)

func (d *jsonDecoder) next() jsonToken {
	for d.pos < len(d.s) && strings.IndexByte(" \t\n\r", d.s[d.pos]) >= 0 {
		d.pos++
	}
	start := d.pos
	if d.pos >= len(d.s) {
		return jsonToken{kind: tEnd, index: start}
	}
	c := d.s[d.pos]
	single := map[byte]int{'{': tObjBegin, '}': tObjEnd, '[': tArrBegin, ']': tArrEnd, ':': tColon, ',': tComma}
	if k, ok := single[c]; ok {
		d.pos++
		return jsonToken{kind: k, index: start}
	}
	switch {
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9') || (d.cfg.decodeInvalid && d.invalidNumber()):
		// With decode_invalid_numbers off, a number that JSON does not
		// allow is refused; inf, nan and '+' are not numbers at all.
		if !d.cfg.decodeInvalid && d.notJSONNumber() {
			return jsonToken{kind: tError, index: start, err: "invalid number"}
		}
		m := strtodPrefix.FindString(d.s[d.pos:])
		f, ok := parseStrtod(m)
		if !ok {
			return jsonToken{kind: tError, index: start, err: "invalid number"}
		}
		d.pos += len(m)
		return jsonToken{kind: tNumber, index: start, num: f}
	case strings.HasPrefix(d.s[d.pos:], "true"):
		d.pos += 4
		return jsonToken{kind: tBoolean, index: start, b: true}
	case strings.HasPrefix(d.s[d.pos:], "false"):
		d.pos += 5
		return jsonToken{kind: tBoolean, index: start}
	case strings.HasPrefix(d.s[d.pos:], "null"):
		d.pos += 4
		return jsonToken{kind: tNull, index: start}
	}
	return jsonToken{kind: tError, index: start, err: "invalid token"}
}

// invalidNumber reports the non-JSON numbers lua-cjson still decodes:
// a leading '+', inf and nan (hexadecimal and leading zeros start with a
// digit).
func (d *jsonDecoder) invalidNumber() bool {
	p := d.s[d.pos:]
	if strings.HasPrefix(p, "+") {
		return true
	}
	p = strings.TrimPrefix(p, "-")
	lp := strings.ToLower(p)
	return strings.HasPrefix(lp, "inf") || strings.HasPrefix(lp, "nan")
}

// notJSONNumber is lua-cjson's json_is_invalid_number, which
// decode_invalid_numbers off refuses: a leading '+', hexadecimal, leading
// zeros, inf and nan.
func (d *jsonDecoder) notJSONNumber() bool {
	p := d.s[d.pos:]
	if strings.HasPrefix(p, "+") {
		return true
	}
	p = strings.TrimPrefix(p, "-")
	if strings.HasPrefix(p, "0") && len(p) > 1 {
		return p[1]|0x20 == 'x' || (p[1] >= '0' && p[1] <= '9')
	}
	if p != "" && p[0] <= '9' {
		return false
	}
	lp := strings.ToLower(p)
	return strings.HasPrefix(lp, "inf") || strings.HasPrefix(lp, "nan")
}

func parseStrtod(m string) (float64, bool) {
	if m == "" {
		return 0, false
	}
	body := strings.TrimLeft(m, "+-")
	neg := strings.HasPrefix(m, "-")
	var f float64
	var err error
	lb := strings.ToLower(body)
	switch {
	case strings.HasPrefix(lb, "inf"):
		f = math.Inf(1)
	case lb == "nan":
		f = math.NaN()
	case strings.HasPrefix(lb, "0x"):
		hex := lb
		if !strings.Contains(hex, "p") {
			hex += "p0"
		}
		f, err = strconv.ParseFloat(hex, 64)
	default:
		f, err = strconv.ParseFloat(body, 64)
		if err != nil && strings.HasSuffix(body, ".") {
			f, err = strconv.ParseFloat(strings.TrimSuffix(body, "."), 64)
		}
	}
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

func (d *jsonDecoder) str() jsonToken {
	start := d.pos
	d.pos++ // the opening quote
	var b strings.Builder
	for {
		if d.pos >= len(d.s) {
			return jsonToken{kind: tError, index: d.pos, err: "unexpected end of string"}
		}
		c := d.s[d.pos]
		if c == '"' {
			d.pos++
			return jsonToken{kind: tString, index: start, str: b.String()}
		}
		if c != '\\' {
			b.WriteByte(c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.s) {
			return jsonToken{kind: tError, index: d.pos, err: "unexpected end of string"}
		}
		esc := d.s[d.pos+1]
		if r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[esc]; ok {
			b.WriteByte(r)
			d.pos += 2
			continue
		}
		if esc != 'u' {
			return jsonToken{kind: tError, index: d.pos, err: "invalid escape code"}
		}
		r, n := d.unicode(d.pos)
		if n == 0 {
			return jsonToken{kind: tError, index: d.pos, err: "invalid unicode escape code"}
		}
		b.WriteRune(r)
		d.pos += n
	}
}

// unicode reads \uXXXX (or a surrogate pair of them) at i.
func (d *jsonDecoder) unicode(i int) (rune, int) {
	hex := func(at int) (rune, bool) {
		if at+6 > len(d.s) || d.s[at] != '\\' || d.s[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(d.s[at+2:at+6], 16, 32)
		return rune(v), err == nil
	}
	hi, ok := hex(i)
	if !ok {
		return 0, 0
	}
	switch {
	case hi >= 0xDC00 && hi <= 0xDFFF:
		return 0, 0
	case hi >= 0xD800 && hi <= 0xDBFF:
		lo, ok := hex(i + 6)
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, 0
		}
		return (hi-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12
	}
	if !utf8.ValidRune(hi) {
		return 0, 0
	}
	return hi, 6
}

func (d *jsonDecoder) value(tok jsonToken, depth int) lua.LValue {
	L := d.L
	switch tok.kind {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return jsonNull
	case tObjBegin, tArrBegin:
		depth++
		if depth > d.cfg.decodeMaxDepth {
			libError(L, "Found too many nested data structures (%d) at character %d", depth, tok.index+1)
		}
		t := L.NewTable()
		if tok.kind == tArrBegin {
			next := d.next()
			if next.kind == tArrEnd {
				return t
			}
			for i := 1; ; i++ {
				t.RawSetInt(i, d.value(next, depth))
				sep := d.next()
				if sep.kind == tArrEnd {
					return t
				}
				if sep.kind != tComma {
					d.fail("comma or array end", sep)
				}
				next = d.next()
			}
		}
		key := d.next()
		if key.kind == tObjEnd {
			return t
		}
		for {
			if key.kind != tString {
				d.fail("object key string", key)
			}
			if colon := d.next(); colon.kind != tColon {
				d.fail("colon", colon)
			}
			t.RawSetString(key.str, d.value(d.next(), depth))
			sep := d.next()
			if sep.kind == tObjEnd {
				return t
			}
			if sep.kind != tComma {
				d.fail("comma or object end", sep)
			}
			key = d.next()
		}
	}
	d.fail("value", tok)
	return lua.LNil
}
