package hygiene

// keyer makes one string of each distinct key it is given: the group keys
// of a million records of a few hundred scopes are a few hundred strings,
// not a million.
type keyer struct {
	m   map[string]string
	buf []byte
}

func newKeyer() *keyer { return &keyer{m: map[string]string{}} }

// join is the parts joined by NUL bytes.
func (k *keyer) join(parts ...string) string {
	k.buf = k.buf[:0]
	for i, p := range parts {
		if i > 0 {
			k.buf = append(k.buf, 0)
		}
		k.buf = append(k.buf, p...)
	}
	return k.of(k.buf)
}

// of is the one string of key b.
func (k *keyer) of(b []byte) string {
	if s, ok := k.m[string(b)]; ok {
		return s
	}
	s := string(b)
	k.m[s] = s
	return s
}
