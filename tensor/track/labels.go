package track

// Labels interns label strings as the keys Detection.Label takes, for Go
// callers whose detector gives strings: the same string is always the
// same key, keys count from 1 (0 is "no label"). The zero value is
// ready. A string seen for the first time allocates; after that Key
// does not. Not for concurrent use.
type Labels struct {
	keys  map[string]uint32
	names []string
}

// Key returns name's key, interning it when new; "" is 0.
func (l *Labels) Key(name string) uint32 {
	if name == "" {
		return 0
	}
	if k, ok := l.keys[name]; ok {
		return k
	}
	if l.keys == nil {
		l.keys = map[string]uint32{}
	}
	l.names = append(l.names, name)
	k := uint32(len(l.names))
	l.keys[name] = k
	return k
}

// Name returns the string of key k ("" for 0 or a key Key never gave).
func (l *Labels) Name(k uint32) string {
	if k == 0 || int(k) > len(l.names) {
		return ""
	}
	return l.names[k-1]
}
