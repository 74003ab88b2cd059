package review

import (
	"maps"
	"slices"
)

// Clone returns a copy of c that shares nothing with it: its slices and
// maps are copied, so a caller may change the copy (add an environment,
// a price) while another holds c. TestConfigCloneCoversEveryReference
// fails when Config gains a slice, map or pointer that Clone does not copy.
func (c Config) Clone() Config {
	c.Envs = slices.Clone(c.Envs)
	for i := range c.Envs {
		e := &c.Envs[i]
		e.Command, e.Allow, e.PassEnv = slices.Clone(e.Command), slices.Clone(e.Allow), slices.Clone(e.PassEnv)
	}
	c.Eval.Prices = maps.Clone(c.Eval.Prices)
	c.OAuth.Envs = slices.Clone(c.OAuth.Envs)
	return c
}
