package script

import "testing"

func TestLibraryMeta(t *testing.T) {
	for _, c := range []struct {
		code, engine, name, err string
	}{
		{"#!lua name=lib\nx", "lua", "lib", ""},
		{"#!LUA NAME=lib\n", "LUA", "lib", ""},
		{"#!lua name=\n", "lua", "", ""},
		{"return 1", "", "", "ERR Missing library metadata"},
		{"#!lua name=x", "", "", "ERR Invalid library metadata"},
		{"#!lua\n", "", "", "ERR Library name was not given"},
		{"#!lua name=a name=b\n", "", "", "ERR Invalid metadata value, name argument was given multiple times"},
		{"#!lua foo=bar\n", "", "", "ERR Invalid metadata value given: foo=bar"},
	} {
		engine, name, _, err := libraryMeta(c.code)
		if engine != c.engine || name != c.name || err != c.err {
			t.Errorf("%q: got %q %q %q, want %q %q %q", c.code, engine, name, err, c.engine, c.name, c.err)
		}
	}
}

func mustLibrary(t *testing.T, code string) *Library {
	t.Helper()
	l, msg := ParseLibrary(code, Options{Version: "7.0.0"})
	if msg != "" {
		t.Fatalf("%q: %s", code, msg)
	}
	return l
}

func TestLibrariesSet(t *testing.T) {
	a := mustLibrary(t, "#!lua name=a\nredis.register_function('fa', function() return 1 end)")
	a2 := mustLibrary(t, "#!lua name=a\nredis.register_function('FB', function() return 1 end)")
	b := mustLibrary(t, "#!lua name=b\nredis.register_function{function_name='fb', callback=function() end, flags={'no-writes'}, description='d'}")
	set, msg := EmptyLibraries.With(a, false)
	if msg != "" || set.Len() != 1 || set.Function("FA") == nil {
		t.Fatalf("with a: %q", msg)
	}
	if _, msg := set.With(a2, false); msg != "ERR Library 'a' already exists" {
		t.Errorf("load over a: %q", msg)
	}
	if _, msg := set.WithAll([]*Library{a2}, false); msg != "ERR Library a already exists" {
		t.Errorf("restore over a: %q", msg)
	}
	set2, msg := set.With(a2, true)
	if msg != "" || set2.Function("fa") != nil || set2.Function("fb") == nil {
		t.Fatalf("replace a: %q", msg)
	}
	if _, msg := set2.With(b, false); msg != "ERR Function fb already exists" {
		t.Errorf("function clash: %q", msg)
	}
	set3, _ := set.With(b, false)
	if f := set3.Function("fb"); f == nil || f.Flags != NoWrites || *f.Description != "d" || f.Library != b {
		t.Errorf("fb: %+v", f)
	}
	if got := set3.Codes(); len(got) != 2 || got[0] != a.Code || got[1] != b.Code {
		t.Errorf("codes: %q", got)
	}
	if s4, ok := set3.Without("a"); !ok || s4.Len() != 1 || s4.Function("fa") != nil || set3.Function("fa") == nil {
		t.Error("without a")
	}
	if _, ok := set3.Without("A"); ok {
		t.Error("library names are case-sensitive")
	}
	if got := set3.List("A*"); len(got) != 1 || got[0] != a {
		t.Errorf("list A*: %v", got)
	}
}

func TestFunctionStateCalls(t *testing.T) {
	lib := mustLibrary(t, "#!lua name=c\nlocal n = 0\nredis.register_function('count', function(keys, args) n = n + 1 return {n, keys[1], args[1]} end)")
	set, _ := EmptyLibraries.With(lib, false)
	p := NewFunctionPool(Options{Version: "7.0.0"})
	fs := p.Get(set)
	if fs.funcs["count"] == nil {
		t.Fatal("count not loaded")
	}
	other, _ := set.Without("c")
	p.Put(fs)
	got := p.Get(other) // closes fs, loaded with the older set
	defer got.Close()
	if got == fs || got.funcs["count"] != nil {
		t.Error("a state of an older set was reused")
	}
}
