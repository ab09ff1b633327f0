package hashcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestHincrby(t *testing.T) {
	const (
		notInt   = cmdtest.Error("ERR value is not an integer or out of range")
		hashNInt = cmdtest.Error("ERR hash value is not an integer")
		overflow = cmdtest.Error("ERR increment or decrement would overflow")
	)
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"HINCRBY", "h", "n", "5"}, want: int64(5)},
		{args: []string{"HINCRBY", "h", "n", "-7"}, want: int64(-2)},
		{args: []string{"HGET", "h", "n"}, want: "-2"},
		{args: []string{"HSET", "h", "big", "17179869184"}, want: int64(1)},
		{args: []string{"HINCRBY", "h", "big", "1"}, want: int64(17179869185)},
		{args: []string{"HINCRBY", "h", "n", "1.5"}, want: notInt},
		{args: []string{"HINCRBY", "h", "n", " 1"}, want: notInt},
		{args: []string{"HINCRBY", "h", "n", "+1"}, want: notInt},
		{args: []string{"HINCRBY", "h", "n", "01"}, want: notInt},
		{args: []string{"HINCRBY", "h", "n", "9223372036854775808"}, want: notInt},
		{args: []string{"HSET", "h", "s", "abc", "sp", " 11", "sp2", "11 ", "f", "1.0"}, want: int64(4)},
		{args: []string{"HINCRBY", "h", "s", "1"}, want: hashNInt},
		{args: []string{"HINCRBY", "h", "sp", "1"}, want: hashNInt},
		{args: []string{"HINCRBY", "h", "sp2", "1"}, want: hashNInt},
		{args: []string{"HINCRBY", "h", "f", "1"}, want: hashNInt},
		{args: []string{"HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775484"}, want: int64(2)},
		{args: []string{"HINCRBY", "h", "max", "1"}, want: overflow},
		{args: []string{"HINCRBY", "h", "max", "-1"}, want: int64(9223372036854775806)},
		{args: []string{"HINCRBY", "h", "min", "-1"}, want: int64(-9223372036854775485)},
		{args: []string{"HINCRBY", "h", "min", "-10000"}, want: overflow},
		{args: []string{"HINCRBY", "h", "min", "0"}, want: int64(-9223372036854775485)},
		{args: []string{"HGET", "h", "min"}, want: "-9223372036854775485"},
	})
	checkReplay(t, h)
}

func TestHincrbyfloat(t *testing.T) {
	const (
		notFloat  = cmdtest.Error("ERR value is not a valid float")
		hashNFlt  = cmdtest.Error("ERR hash value is not a float")
		incrInf   = cmdtest.Error("ERR value is NaN or Infinity")
		resultInf = cmdtest.Error("ERR increment would produce NaN or Infinity")
	)
	h := newHarness(t)
	run(t, h, []step{
		{args: []string{"HINCRBYFLOAT", "h", "f", "10.5"}, want: "10.5"},
		{args: []string{"HINCRBYFLOAT", "h", "f", "0.1"}, want: "10.6"},
		{args: []string{"HINCRBYFLOAT", "h", "g", "0.1"}, want: "0.1"},
		{args: []string{"HINCRBYFLOAT", "h", "g", "0.2"}, want: "0.3"},
		{args: []string{"HINCRBYFLOAT", "h", "e", "5.0e3"}, want: "5000"},
		{args: []string{"HINCRBYFLOAT", "h", "e", "2.0e2"}, want: "5200"},
		{args: []string{"HINCRBYFLOAT", "h", "e", "-5200"}, want: "0"},
		{args: []string{"HINCRBYFLOAT", "h", "e", "-0.0"}, want: "0"},
		{args: []string{"HINCRBYFLOAT", "h", "e", "1.23e-10"}, want: "0.000000000123"},
		// Seventeen decimals, as %.17Lf prints: the tiny decrement rounds away.
		{args: []string{"HINCRBYFLOAT", "h", "e", "-1e-20"}, want: "0.000000000123"},
		{args: []string{"HSET", "h", "i", "17179869184"}, want: int64(1)},
		{args: []string{"HINCRBYFLOAT", "h", "i", "1.5"}, want: "17179869185.5"},
		{args: []string{"HINCRBYFLOAT", "h", "i", ".5"}, want: "17179869186"},
		{args: []string{"HINCRBYFLOAT", "h", "i", "x"}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", " 1"}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", "1 "}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", ""}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", "nan"}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", "1e5000"}, want: notFloat},
		{args: []string{"HINCRBYFLOAT", "h", "i", "inf"}, want: incrInf},
		{args: []string{"HINCRBYFLOAT", "h", "i", "-Infinity"}, want: incrInf},
		{args: []string{"HSET", "h", "s", "abc", "sp", " 11", "sp2", "11 ", "nul", "1\x002", "inf", "inf"}, want: int64(5)},
		{args: []string{"HINCRBYFLOAT", "h", "s", "1"}, want: hashNFlt},
		{args: []string{"HINCRBYFLOAT", "h", "sp", "1"}, want: hashNFlt},
		{args: []string{"HINCRBYFLOAT", "h", "sp2", "1"}, want: hashNFlt},
		{args: []string{"HINCRBYFLOAT", "h", "nul", "1"}, want: hashNFlt},
		{args: []string{"HINCRBYFLOAT", "h", "inf", "1"}, want: resultInf},
		{args: []string{"HSET", "h", "huge", "1e4932"}, want: int64(1)},
		{args: []string{"HINCRBYFLOAT", "h", "huge", "1e4932"}, want: resultInf},
		{args: []string{"HGET", "h", "huge"}, want: "1e4932"},
		{args: []string{"HSET", "h", "hex", "0x10"}, want: int64(1)},
		{args: []string{"HINCRBYFLOAT", "h", "hex", "1"}, want: "17"},
	})
	checkReplay(t, h)
}
