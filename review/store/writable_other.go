//go:build !unix

package store

// writable is always true where there is no access(2): a bank that cannot
// be written is opened read-only only when asked (Options.ReadOnly).
func writable(string) bool { return true }
