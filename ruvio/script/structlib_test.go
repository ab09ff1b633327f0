package script

import "testing"

// Vectors from redis-server 7.0.15 (EVAL body 0, raw replies).
func TestStructMatchesRedis(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return struct.pack('>I2', 258)", "$2\r\n\x01\x02\r\n"},
		{"return struct.pack('<I2', 258)", "$2\r\n\x02\x01\r\n"},
		{"return struct.pack('bBhHlLiI', -1, 255, -2, 65535, -3, 3, -4, 4)", "$30\r\n\xff\xff\xfe\xff\xff\xff\xfd\xff\xff\xff\xff\xff\xff\xff\x03\x00\x00\x00\x00\x00\x00\x00\xfc\xff\xff\xff\x04\x00\x00\x00\r\n"},
		{"return struct.pack('>i8', -2)", "$8\r\n\xff\xff\xff\xff\xff\xff\xff\xfe\r\n"},
		{"return struct.pack('I3', 65536 + 2)", "$3\r\n\x02\x00\x01\r\n"},
		{"return struct.pack('f', 1.5)", "$4\r\n\x00\x00\xc0?\r\n"},
		{"return struct.pack('>d', 0.1)", "$8\r\n?\xb9\x99\x99\x99\x99\x99\x9a\r\n"},
		{"return struct.pack('c3', 'abcdef')", "$3\r\nabc\r\n"},
		{"return struct.pack('c0', 'abcdef')", "$6\r\nabcdef\r\n"},
		{"return struct.pack('s', 'hi')", "$3\r\nhi\x00\r\n"},
		{"return struct.pack('c5', 'ab')", "-ERR user_script:1: bad argument #3 to 'pack' (string too short) script: cec53901ab5000b5eccda51f64e59e716bdfd4ba, on @user_script:1.\r\n"},
		{"return struct.pack('!4 b i', 1, 2)", "$8\r\n\x01\x00\x00\x00\x02\x00\x00\x00\r\n"},
		{"return struct.pack('!4 b xi', 1, 2)", "$8\r\n\x01\x00\x00\x00\x02\x00\x00\x00\r\n"},
		{"return struct.pack('!3 b i', 1, 2)", "-ERR user_script:1: alignment 3 is not a power of 2 script: a4e838d7036111df3530375200e43278fc55bd8f, on @user_script:1.\r\n"},
		{"return struct.pack('q', 1)", "-ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'q') script: 49599a2466f241bd45a2bd4f631df3a1a1ec9790, on @user_script:1.\r\n"},
		{"return struct.pack('i33', 1)", "-ERR user_script:1: integral size 33 is larger than limit of 32 script: 0a76c071d82805e752befa6958961c98c39f358f, on @user_script:1.\r\n"},
		{"return struct.pack('i', 'x')", "-ERR user_script:1: bad argument #2 to 'pack' (number expected, got string) script: 72d01f23645269179316b093775c7fa64478554a, on @user_script:1.\r\n"},
		{"return {struct.unpack('>I2', '\\1\\2')}", "*2\r\n:258\r\n:3\r\n"},
		{"return {struct.unpack('<i2', '\\255\\255')}", "*2\r\n:-1\r\n:3\r\n"},
		{"return {struct.unpack('bBhH', struct.pack('bBhH', -1, 255, -2, 65535))}", "*5\r\n:-1\r\n:255\r\n:-2\r\n:65535\r\n:7\r\n"},
		{"return {struct.unpack('>i8', struct.pack('>i8', -2))}", "*2\r\n:-2\r\n:9\r\n"},
		{"return {struct.unpack('c2c1', 'abc')}", "*3\r\n$2\r\nab\r\n$1\r\nc\r\n:4\r\n"},
		{"return {struct.unpack('B c0', '\\3abcd')}", "*2\r\n$3\r\nabc\r\n:5\r\n"},
		{"return {struct.unpack('s i', struct.pack('s i', 'hey', 7))}", "*3\r\n$3\r\nhey\r\n:7\r\n:9\r\n"},
		{"return {struct.unpack('i', 'ab')}", "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short) script: 4ea259654b1cfa6b1fc999f3ae72bb6f48d476f4, on @user_script:1.\r\n"},
		{"return {struct.unpack('s', 'abc')}", "-ERR user_script:1: unfinished string in data script: 492b42cd22537e0bb82c111843dde3f2c69bafe9, on @user_script:1.\r\n"},
		{"return {struct.unpack('c0', 'abc')}", "-ERR user_script:1: format 'c0' needs a previous size script: b3fd8e7c8bb6ee20854fafea5b84014791ec5cf5, on @user_script:1.\r\n"},
		{"return {struct.unpack('B', '\\1\\2\\3', 2)}", "*2\r\n:2\r\n:3\r\n"},
		{"return {struct.unpack('B', '\\1', 5)}", "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short) script: 903b33e0dbc060c92c97a71a4ad7bc85fd8fa870, on @user_script:1.\r\n"},
		{"return tostring(struct.unpack('f', struct.pack('f', 0.1)))", "$16\r\n0.10000000149012\r\n"},
		{"return tostring(struct.unpack('>d', struct.pack('>d', 0.1)))", "$3\r\n0.1\r\n"},
		{"return struct.size('bhilfd')", ":27\r\n"},
		{"return struct.size('!8 b d')", ":16\r\n"},
		{"return struct.size('s')", "-ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size) script: a2a0525826ab7939ccd3f54427a862205642f28f, on @user_script:1.\r\n"},
		{"return struct.size('c0')", "-ERR user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size) script: 18f217e7d560de92703dc71e9797e043b536e0e6, on @user_script:1.\r\n"},
		{"return struct.size('c7 x')", ":8\r\n"},
		{"return struct.size('z')", ":0\r\n"},
		{"return struct.pack()", "-ERR user_script:1: bad argument #1 to 'pack' (string expected, got no value) script: c9b8aed4f0633591e6252db264bf8b86b82828d5, on @user_script:1.\r\n"},
		{"return {struct.unpack('!2 b h', struct.pack('!2 b h', 1, 2))}", "*3\r\n:1\r\n:2\r\n:5\r\n"},
		{"return {struct.unpack('I', struct.pack('I', 4294967295))}", "*2\r\n:4294967295\r\n:5\r\n"},
		{"return {struct.unpack('i', struct.pack('i', 4294967295))}", "*2\r\n:-1\r\n:5\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, 2, nil, nil, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}
