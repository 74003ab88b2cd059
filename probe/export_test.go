package probe

// What the external tests (package probe_test, which may import the
// drivers that register with this package) need of its insides.

// FingerprintLen is fingerprintLen.
const FingerprintLen = fingerprintLen

// DirNames is dirNames.
var DirNames = dirNames

// ConnOf returns the Conn r holds open for the environment named name, or
// nil.
func ConnOf(r *Runner, name string) Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns[name].conn
}
