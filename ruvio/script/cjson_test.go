package script

import "testing"

// Vectors from redis-server 7.0.15 (EVAL body 0, raw replies).
func TestCJSONMatchesRedis(t *testing.T) {
	cases := []struct{ body, want string }{
		{"return cjson.encode({})", "$2\r\n{}\r\n"},
		{"return cjson.encode({1,2,3})", "$7\r\n[1,2,3]\r\n"},
		{"return cjson.encode({a=1})", "$7\r\n{\"a\":1}\r\n"},
		{"return cjson.encode({a={b={1,'x',true,false}}})", "$30\r\n{\"a\":{\"b\":[1,\"x\",true,false]}}\r\n"},
		{"return cjson.encode(0.1)", "$3\r\n0.1\r\n"},
		{"return cjson.encode(1/3)", "$16\r\n0.33333333333333\r\n"},
		{"return cjson.encode(1e20)", "$5\r\n1e+20\r\n"},
		{"return cjson.encode(123456789012345)", "$19\r\n1.2345678901234e+14\r\n"},
		{"return cjson.encode('a/b\"c\\\\d\\n\\t\\1\\127')", "$28\r\n\"a\\/b\\\"c\\\\d\\n\\t\\u0001\\u007f\"\r\n"},
		{"return cjson.encode(cjson.null)", "$4\r\nnull\r\n"},
		{"return cjson.encode(nil)", "$4\r\nnull\r\n"},
		{"return cjson.encode({[1]=1,[3]=3})", "$10\r\n[1,null,3]\r\n"},
		{"return cjson.encode({[1]=1,[20]=3})", "-ERR user_script:1: Cannot serialise table: excessively sparse array script: 599049a94af36a079b8c19b2e9635d7951cda076, on @user_script:1.\r\n"},
		{"return cjson.encode({[1.5]=1})", "$9\r\n{\"1.5\":1}\r\n"},
		{"return cjson.encode(function() end)", "-ERR user_script:1: Cannot serialise function: type not supported script: c6600573aa08cdf0af5da6e0ef682db69a3acc00, on @user_script:1.\r\n"},
		{"return cjson.encode(1/0)", "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: 08ffdaa5e7f117332da21c3b5222c2ede9492c60, on @user_script:1.\r\n"},
		{"return cjson.encode({[true]=1})", "-ERR user_script:1: Cannot serialise boolean: table key must be a number or string script: 376a640005c8509c694166527ca834359bf69aa8, on @user_script:1.\r\n"},
		{"return cjson.encode(-0)", "$2\r\n-0\r\n"},
		{"return cjson.encode(2^53)", "$18\r\n9.007199254741e+15\r\n"},
		{"return cjson.encode({[2]=1})", "$8\r\n[null,1]\r\n"},
		{"return cjson.encode({['1']=1})", "$7\r\n{\"1\":1}\r\n"},
		{"return cjson.encode()", "-ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument) script: fc593ea31f478c7ed65c77495cc63edeb9153530, on @user_script:1.\r\n"},
		{"return cjson.decode('[1,2,{\"a\":null}]')[3].a == cjson.null", ":1\r\n"},
		{"return cjson.decode('{\"a\":[1,2.5,\"x\",true,false]}').a", "*5\r\n:1\r\n:2\r\n$1\r\nx\r\n:1\r\n$-1\r\n"},
		{"return cjson.decode('\"\\\\u00e9\\\\n\"')", "$3\r\n\xc3\xa9\n\r\n"},
		{"return cjson.decode('1e2')", ":100\r\n"},
		{"return cjson.decode('[')", "-ERR user_script:1: Expected value but found T_END at character 2 script: fa22f6775c4b5a7555f7903baca8d69e9a2a52fd, on @user_script:1.\r\n"},
		{"return cjson.decode('x')", "-ERR user_script:1: Expected value but found invalid token at character 1 script: 5f58dd5cefb3eb0313af3534f36be4b83e79ae80, on @user_script:1.\r\n"},
		{"return cjson.decode('{\"a\":1,}')", "-ERR user_script:1: Expected object key string but found T_OBJ_END at character 8 script: 7e3659dd873275ff5047e436b0cc31cc91d160e4, on @user_script:1.\r\n"},
		{"return cjson.decode('')", "-ERR user_script:1: Expected value but found T_END at character 1 script: 7ff8cf86abed928f4d61a01dcc9713f0117b180a, on @user_script:1.\r\n"},
		{"return cjson.decode('[1] x')", "-ERR user_script:1: Expected the end but found invalid token at character 5 script: 90488ed3df43636c96be19291b12cbc738913942, on @user_script:1.\r\n"},
		{"return cjson.decode('-0.5')", ":0\r\n"},
		{"return cjson.decode('\"\\\\ud83d\\\\ude00\"')", "$4\r\n\xf0\x9f\x98\x80\r\n"},
		{"return type(cjson.decode('null'))", "$8\r\nuserdata\r\n"},
		{"return cjson.decode('[1,null,3]')[3]", ":3\r\n"},
		{"return cjson.encode(cjson.decode('{\"a\":{}}'))", "$8\r\n{\"a\":{}}\r\n"},
		{"return cjson.decode('[\"\\\\x\"]')", "-ERR user_script:1: Expected value but found invalid escape code at character 3 script: 5d3b1dbb8b5bc74831b8f290db46912cee97193b, on @user_script:1.\r\n"},
		{"return cjson.decode('tru')", "-ERR user_script:1: Expected value but found invalid token at character 1 script: b0ae6f0426d6ff93bdff3364f547baa19aa4171b, on @user_script:1.\r\n"},
		{"return cjson.decode('\"abc')", "-ERR user_script:1: Expected value but found unexpected end of string at character 5 script: 30d67c6fb8e066eef4796bfcc59cee500c381744, on @user_script:1.\r\n"},
		{"return cjson.decode('{1:2}')", "-ERR user_script:1: Expected object key string but found T_NUMBER at character 2 script: b7dfc51e0d5bf164c246fe708a2e33743e899be6, on @user_script:1.\r\n"},
		{"return cjson.decode(' [ 1 , 2 ] ')[2]", ":2\r\n"},
		{"return cjson.decode('0x10')", ":16\r\n"},
		{"return cjson.decode('01')", ":1\r\n"},
		{"return cjson.decode('.5')", "-ERR user_script:1: Expected value but found invalid token at character 1 script: 121c0b0f2d2ad62de9456ed953ed7b854d2ec58d, on @user_script:1.\r\n"},
		{"return cjson.decode('1.')", ":1\r\n"},
		{"return cjson.decode('{\"a\" 1}')", "-ERR user_script:1: Expected colon but found T_NUMBER at character 6 script: 3486ee24bfdfc100c738c73355e99954ef01d92f, on @user_script:1.\r\n"},
		{"return cjson.decode('[1 2]')", "-ERR user_script:1: Expected comma or array end but found T_NUMBER at character 4 script: cae89247ef27d42d411c61ae44ff3af6ab258d99, on @user_script:1.\r\n"},
		{"return cjson.decode('{\"a\":1 \"b\":2}')", "-ERR user_script:1: Expected comma or object end but found T_STRING at character 8 script: 7e6d40e89e823b8e3c90db9a275f3a62289f33af, on @user_script:1.\r\n"},
		{"return cjson.decode('\"\\\\ud83d\"')", "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: a6c52b6928b77ab585254f4aad3a29c682736f38, on @user_script:1.\r\n"},
		{"return cjson.decode()", "-ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument) script: 5378278d59343caf5c3375a655dfea5e69ab8a74, on @user_script:1.\r\n"},
		{"return cjson.decode({})", "-ERR user_script:1: bad argument #1 to 'decode' (string expected, got table) script: 10c706d54b3ae7d2bcc169d647405abd961145fa, on @user_script:1.\r\n"},
		{"return cjson.decode(12)", ":12\r\n"},
		{"return cjson.decode('-')", "-ERR user_script:1: Expected value but found invalid number at character 1 script: a968c762a4638482bd9ef50dcecdc4504214d87d, on @user_script:1.\r\n"},
		{"return cjson.decode('nan')", ":-9223372036854775808\r\n"},
		{"return cjson.encode(cjson.decode('[1.5e3,-2,\"\\\\/\"]'))", "$14\r\n[1500,-2,\"\\/\"]\r\n"},
		{"return cjson.encode({cjson.null, 1})", "$8\r\n[null,1]\r\n"},
		{"return cjson.encode({1,2,nil,4})", "$12\r\n[1,2,null,4]\r\n"},
		{"return cjson.encode({[1]=1,[2]=2,[4]=4,[8]=8,[11]=1})", "-ERR user_script:1: Cannot serialise table: excessively sparse array script: 3ac0848684e44344b1bd037f7d924b3514682449, on @user_script:1.\r\n"},
		{"return cjson.encode({x={}})", "$8\r\n{\"x\":{}}\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, 2, nil, nil, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}

// A table's keys come out in the order pairs() visits them, the same on
// every call: map and set replies, cjson and cmsgpack walked Go maps,
// whose order changes from walk to walk.
func TestTablesConvertInOneOrder(t *testing.T) {
	bodies := []string{
		"return cjson.encode({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8})",
		"return cmsgpack.pack({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8})",
		"return {map={a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8}}",
		"return {set={a=true,b=true,c=true,d=true,e=true,f=true,g=true,h=true}}",
	}
	for _, body := range bodies {
		first := eval(t, body, 3, nil, nil, nil)
		for range 20 {
			if got := eval(t, body, 3, nil, nil, nil); got != first {
				t.Fatalf("%s answered %q, then %q", body, first, got)
			}
		}
	}
}
