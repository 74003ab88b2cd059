package review

import (
	"fmt"
	"math"
	"strings"
)

// EvalConfig holds memreview.toml [eval]: the task agent's defaults and
// the price table that turns its tokens into an estimated cost.
//
//	[eval]
//	model = "qwen3:8b"
//	[eval.prices."gpt-4o-mini"]
//	input_per_mtok = 0.15
//	output_per_mtok = 0.60
type EvalConfig struct {
	// Model is the task agent's model when --model does not say
	// (else OPENAI_MODEL, else [curator] model).
	Model string `toml:"model,omitempty"`
	// Prices maps a model name to its price; a model not in the table
	// has an unknown cost.
	Prices map[string]Price `toml:"prices,omitempty"`
}

// Price is what a model's tokens cost, in US dollars per million.
type Price struct {
	InputPerMTok  float64 `toml:"input_per_mtok" json:"input_per_mtok"`
	OutputPerMTok float64 `toml:"output_per_mtok" json:"output_per_mtok"`
}

// Cost is the price of in input and out output tokens, in dollars.
func (p Price) Cost(in, out int) float64 {
	return float64(in)/1e6*p.InputPerMTok + float64(out)/1e6*p.OutputPerMTok
}

// PriceOf finds model's price: its exact name, else a name it starts with
// (a table entry "gpt-4o-mini" prices "gpt-4o-mini-2024-07-18"), the
// longest such.
func (c EvalConfig) PriceOf(model string) (Price, bool) {
	if p, ok := c.Prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range c.Prices {
		if name != "" && strings.HasPrefix(model, name) && len(name) > len(best) {
			best, found = name, true
		}
	}
	return c.Prices[best], found
}

// CheckPrices says what is wrong with the price table: a negative or
// non-finite price, naming the model and the field.
func (c EvalConfig) CheckPrices() error {
	for name, p := range c.Prices {
		for field, v := range map[string]float64{"input_per_mtok": p.InputPerMTok, "output_per_mtok": p.OutputPerMTok} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("[eval.prices.%q] field %q: %v is not a price (dollars per million tokens, 0 or more)", name, field, v)
			}
		}
	}
	return nil
}
