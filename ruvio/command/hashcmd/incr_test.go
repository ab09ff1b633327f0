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
	cmdtest.Steps{
		{Args: []string{"HINCRBY", "h", "n", "5"}, Want: int64(5)},
		{Args: []string{"HINCRBY", "h", "n", "-7"}, Want: int64(-2)},
		{Args: []string{"HGET", "h", "n"}, Want: "-2"},
		{Args: []string{"HSET", "h", "big", "17179869184"}, Want: int64(1)},
		{Args: []string{"HINCRBY", "h", "big", "1"}, Want: int64(17179869185)},
		{Args: []string{"HINCRBY", "h", "n", "1.5"}, Want: notInt},
		{Args: []string{"HINCRBY", "h", "n", " 1"}, Want: notInt},
		{Args: []string{"HINCRBY", "h", "n", "+1"}, Want: notInt},
		{Args: []string{"HINCRBY", "h", "n", "01"}, Want: notInt},
		{Args: []string{"HINCRBY", "h", "n", "9223372036854775808"}, Want: notInt},
		{Args: []string{"HSET", "h", "s", "abc", "sp", " 11", "sp2", "11 ", "f", "1.0"}, Want: int64(4)},
		{Args: []string{"HINCRBY", "h", "s", "1"}, Want: hashNInt},
		{Args: []string{"HINCRBY", "h", "sp", "1"}, Want: hashNInt},
		{Args: []string{"HINCRBY", "h", "sp2", "1"}, Want: hashNInt},
		{Args: []string{"HINCRBY", "h", "f", "1"}, Want: hashNInt},
		{Args: []string{"HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775484"}, Want: int64(2)},
		{Args: []string{"HINCRBY", "h", "max", "1"}, Want: overflow},
		{Args: []string{"HINCRBY", "h", "max", "-1"}, Want: int64(9223372036854775806)},
		{Args: []string{"HINCRBY", "h", "min", "-1"}, Want: int64(-9223372036854775485)},
		{Args: []string{"HINCRBY", "h", "min", "-10000"}, Want: overflow},
		{Args: []string{"HINCRBY", "h", "min", "0"}, Want: int64(-9223372036854775485)},
		{Args: []string{"HGET", "h", "min"}, Want: "-9223372036854775485"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}

func TestHincrbyfloat(t *testing.T) {
	const (
		notFloat  = cmdtest.Error("ERR value is not a valid float")
		hashNFlt  = cmdtest.Error("ERR hash value is not a float")
		incrInf   = cmdtest.Error("ERR value is NaN or Infinity")
		resultInf = cmdtest.Error("ERR increment would produce NaN or Infinity")
	)
	h := newHarness(t)
	cmdtest.Steps{
		{Args: []string{"HINCRBYFLOAT", "h", "f", "10.5"}, Want: "10.5"},
		{Args: []string{"HINCRBYFLOAT", "h", "f", "0.1"}, Want: "10.6"},
		{Args: []string{"HINCRBYFLOAT", "h", "g", "0.1"}, Want: "0.1"},
		{Args: []string{"HINCRBYFLOAT", "h", "g", "0.2"}, Want: "0.3"},
		{Args: []string{"HINCRBYFLOAT", "h", "e", "5.0e3"}, Want: "5000"},
		{Args: []string{"HINCRBYFLOAT", "h", "e", "2.0e2"}, Want: "5200"},
		{Args: []string{"HINCRBYFLOAT", "h", "e", "-5200"}, Want: "0"},
		{Args: []string{"HINCRBYFLOAT", "h", "e", "-0.0"}, Want: "0"},
		{Args: []string{"HINCRBYFLOAT", "h", "e", "1.23e-10"}, Want: "0.000000000123"},
		// Seventeen decimals, as %.17Lf prints: the tiny decrement rounds away.
		{Args: []string{"HINCRBYFLOAT", "h", "e", "-1e-20"}, Want: "0.000000000123"},
		{Args: []string{"HSET", "h", "i", "17179869184"}, Want: int64(1)},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "1.5"}, Want: "17179869185.5"},
		{Args: []string{"HINCRBYFLOAT", "h", "i", ".5"}, Want: "17179869186"},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "x"}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", " 1"}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "1 "}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", ""}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "nan"}, Want: notFloat},
		// A binary exponent belongs to hexadecimal numbers only.
		{Args: []string{"HINCRBYFLOAT", "h", "i", "1p3"}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "1e5000"}, Want: notFloat},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "inf"}, Want: incrInf},
		{Args: []string{"HINCRBYFLOAT", "h", "i", "-Infinity"}, Want: incrInf},
		{Args: []string{"HSET", "h", "s", "abc", "sp", " 11", "sp2", "11 ", "nul", "1\x002", "inf", "inf"}, Want: int64(5)},
		{Args: []string{"HINCRBYFLOAT", "h", "s", "1"}, Want: hashNFlt},
		{Args: []string{"HINCRBYFLOAT", "h", "sp", "1"}, Want: hashNFlt},
		{Args: []string{"HINCRBYFLOAT", "h", "sp2", "1"}, Want: hashNFlt},
		{Args: []string{"HINCRBYFLOAT", "h", "nul", "1"}, Want: hashNFlt},
		{Args: []string{"HINCRBYFLOAT", "h", "inf", "1"}, Want: resultInf},
		{Args: []string{"HSET", "h", "huge", "1e4932"}, Want: int64(1)},
		{Args: []string{"HINCRBYFLOAT", "h", "huge", "1e4932"}, Want: resultInf},
		{Args: []string{"HGET", "h", "huge"}, Want: "1e4932"},
		{Args: []string{"HSET", "h", "hex", "0x10"}, Want: int64(1)},
		{Args: []string{"HINCRBYFLOAT", "h", "hex", "1"}, Want: "17"},
	}.Run(t, h)
	cmdtest.CheckReplay(t, h)
}
