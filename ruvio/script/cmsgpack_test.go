package script

import "testing"

// Vectors from redis-server 7.0.15 (EVAL body 0, raw replies).
func TestCMsgpackMatchesRedis(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return cmsgpack.pack(1, -1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649)", "$62\r\n\x01\xff\x7f\xcc\x80\xcc\xff\xcd\x01\x00\xcd\xff\xff\xce\x00\x01\x00\x00\xce\xff\xff\xff\xff\xcf\x00\x00\x00\x01\x00\x00\x00\x00\xe0\xd0\xdf\xd0\x80\xd1\xff\x7f\xd1\x80\x00\xd2\xff\xff\x7f\xff\xd2\x80\x00\x00\x00\xd3\xff\xff\xff\xff\x7f\xff\xff\xff\r\n"},
		{"return cmsgpack.pack(0.5, 0.1, 1e300, -1.5, 1/0)", "$33\r\n\xca?\x00\x00\x00\xcb?\xb9\x99\x99\x99\x99\x99\x9a\xcb~7\xe4<\x88\x00u\x9c\xca\xbf\xc0\x00\x00\xca\x7f\x80\x00\x00\r\n"},
		{"return cmsgpack.pack('', 'abc', string.rep('x', 31), string.rep('y', 32), string.rep('z', 256))", "$330\r\n\xa0\xa3abc\xbfxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xd9 yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\xda\x01\x00zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\r\n"},
		{"return cmsgpack.pack(true, false, nil)", "$3\r\n\xc3\xc2\xc0\r\n"},
		{"return cmsgpack.pack({})", "$1\r\n\x90\r\n"},
		{"return cmsgpack.pack({1,2,3})", "$4\r\n\x93\x01\x02\x03\r\n"},
		{"return cmsgpack.pack({a=1})", "$4\r\n\x81\xa1a\x01\r\n"},
		{"return cmsgpack.pack({[1]=1,[3]=3})", "$5\r\n\x82\x01\x01\x03\x03\r\n"},
		{"return cmsgpack.pack({1,{2,{3,{4}}}})", "$8\r\n\x92\x01\x92\x02\x92\x03\x91\x04\r\n"},
		{"local t = 1 for i=1,18 do t = {t} end return cmsgpack.pack(t)", "$17\r\n\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\xc0\r\n"},
		{"return cmsgpack.pack(string.rep('a', 70000)):sub(1, 8)", "$8\r\n\xdb\x00\x01\x11paaa\r\n"},
		{"return cmsgpack.pack({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}):sub(1,4)", "$4\r\n\xdc\x00\x10\x01\r\n"},
		{"return cmsgpack.pack()", "-ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.) script: 6bc235afa55de88253e203cc5fe5844792e25209, on @user_script:1.\r\n"},
		{"return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {1, 2}, true))}", "*4\r\n:1\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n:1\r\n"},
		{"return cmsgpack.unpack(cmsgpack.pack({a='b'})).a", "$1\r\nb\r\n"},
		{"return {cmsgpack.unpack('\\145')}", "-ERR user_script:1: Missing bytes in input. script: 87459497454ce1ae89c3eb14c0f5e3e92d4fd8a5, on @user_script:1.\r\n"},
		{"return {cmsgpack.unpack('\\193')}", "-ERR user_script:1: Bad data format in input. script: 4370c4369e4c339c56b8ad64adc652c10d7953b5, on @user_script:1.\r\n"},
		{"return {cmsgpack.unpack(cmsgpack.pack(-5, 300, -300, 70000, -70000, 5000000000, 0.5))}", "*7\r\n:-5\r\n:300\r\n:-300\r\n:70000\r\n:-70000\r\n:5000000000\r\n:0\r\n"},
		{"return tostring(cmsgpack.unpack(cmsgpack.pack(0.1)))", "$3\r\n0.1\r\n"},
		{"return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}", "*2\r\n:1\r\n:1\r\n"},
		{"return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}", "*2\r\n:2\r\n:2\r\n"},
		{"return {cmsgpack.unpack_one(cmsgpack.pack(1), 0)}", "*2\r\n:-1\r\n:1\r\n"},
		{"return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}", "*3\r\n:2\r\n:1\r\n:2\r\n"},
		{"return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 1)}", "*3\r\n:-1\r\n:2\r\n:3\r\n"},
		{"return {cmsgpack.unpack_one('abc', 9)}", "-ERR user_script:1: Start offset 9 greater than input length 3. script: e127a7bfcb9b3521a292df957e466787128ac666, on @user_script:1.\r\n"},
		{"return {cmsgpack.unpack('')}", "*0\r\n"},
		{"return cmsgpack.unpack({})", "-ERR user_script:1: bad argument #1 to 'unpack' (string expected, got table) script: 1bf8d78c3e2298775df6934cb05254905d2c8ddc, on @user_script:1.\r\n"},
		{"return {cmsgpack.unpack('\\205\\1')}", "-ERR user_script:1: Missing bytes in input. script: 4da9fbd31d226f226d552ab0f5198a12ec27f96b, on @user_script:1.\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, 2, nil, nil, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}
