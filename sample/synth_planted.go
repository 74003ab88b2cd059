package sample

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/memreview/memreview/review"
)

// Synth plants near-duplicates and contradictions, with their ground truth
// (SynthPlanted), so that hygiene's precision and recall can be measured:
// record i with i%plantEvery == plantDup is a paraphrase of record i-1 (the
// same advice in other words: synonyms, a dropped or reworded trigger, a
// step fewer, its identifiers and numbers kept), and record i with
// i%plantEvery == plantContra restates record i-1 with its claimed unit,
// range or new name changed, when record i-1 makes such a claim.
const (
	plantEvery  = 40
	plantDup    = 20
	plantContra = 30
)

// Planted is the ground truth of a synthetic bank: pairs of record ids,
// the original first.
type Planted struct {
	Duplicates     [][2]string
	Contradictions [][2]string
}

// SynthPlanted returns what Synth(dir, opt) plants, leaving out pairs of
// which a record is retired.
func SynthPlanted(opt SynthOptions) Planted {
	var p Planted
	for i := 1; i < opt.Records; i++ {
		kind := i % plantEvery
		if kind != plantDup && kind != plantContra {
			continue
		}
		base, rec := synthRecord(opt.Seed, i-1, opt.Trajectories), synthRecordAt(opt.Seed, i, opt.Trajectories)
		if base.Status != review.Active || rec.Status != review.Active || rec.Lemma == synthRecord(opt.Seed, i, opt.Trajectories).Lemma {
			continue
		}
		pair := [2]string{base.ID, rec.ID}
		if kind == plantDup {
			p.Duplicates = append(p.Duplicates, pair)
		} else {
			p.Contradictions = append(p.Contradictions, pair)
		}
	}
	return p
}

// ChanceDuplicates returns the pairs of active records that the generator
// made the same by chance (same environment, task family and category,
// same meaning: the same lemma, or one whose coordinated names are in
// another order, see sameMeaning): duplicates too, though not planted.
// Every pair of a group of three or more is listed.
func ChanceDuplicates(recs []review.Record) [][2]string {
	groups := map[string][]string{}
	var keys []string
	for _, r := range recs {
		if r.Status != review.Active {
			continue
		}
		k := strings.Join([]string{r.Scope.Env, r.Scope.TaskFamily, string(r.Category), sameMeaning(r.Lemma)}, "\x00")
		if len(groups[k]) == 0 {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r.ID)
	}
	var out [][2]string
	for _, k := range keys {
		ids := groups[k]
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				out = append(out, [2]string{ids[i], ids[j]})
			}
		}
	}
	return out
}

// DuplicateTruth is every pair of active records that say the same: the
// planted paraphrases and the chance duplicates, closed under "says the
// same as" (a paraphrase of a record says what each chance duplicate of
// that record says).
func DuplicateTruth(recs []review.Record, planted [][2]string) [][2]string {
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != "" && parent[x] != x {
			x = parent[x]
		}
		return x
	}
	var order []string
	for _, p := range append(append([][2]string(nil), planted...), ChanceDuplicates(recs)...) {
		for _, x := range p {
			if parent[x] == "" {
				parent[x] = x
				order = append(order, x)
			}
		}
		if a, b := find(p[0]), find(p[1]); a != b {
			parent[b] = a
		}
	}
	members := map[string][]string{}
	var roots []string
	for _, x := range order {
		r := find(x)
		if len(members[r]) == 0 {
			roots = append(roots, r)
		}
		members[r] = append(members[r], x)
	}
	var out [][2]string
	for _, r := range roots {
		ms := members[r]
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				out = append(out, [2]string{ms[i], ms[j]})
			}
		}
	}
	return out
}

// Templates of synthRecord whose names commute: "a and b" (a join, a
// pair of keys, two definitions to read), a parenthesised list of
// columns, and a join written from either side (with each side's key).
var (
	commuteAnd  = regexp.MustCompile(`^(\S+) and (\S+) key on|definitions of (\S+) and (\S+) before`)
	commuteList = regexp.MustCompile(`\(([^(),]+), ([^(),]+)\) are`)
	commuteJoin = regexp.MustCompile(`(\S+) joins (\S+) on (\S+) = (\S+)\.$`)
	commuteKeys = regexp.MustCompile(`^if joining (\S+) and (\S+) finds nothing, the keys differ: (\S+) uses (\S+), (\S+) uses (\S+);`)
)

// sameMeaning is a lemma with its commuting names in one order, so that two
// lemmas that say the same in another order are equal.
func sameMeaning(lemma string) string {
	l := strings.ToLower(lemma)
	sorted2 := func(a, b string) (string, string) {
		if b < a {
			return b, a
		}
		return a, b
	}
	if m := commuteKeys.FindStringSubmatch(l); m != nil {
		x, y := sorted2(m[3]+" uses "+m[4], m[5]+" uses "+m[6])
		return "keys differ: " + x + ", " + y + l[len(m[0]):]
	}
	if m := commuteJoin.FindStringSubmatchIndex(l); m != nil {
		sub := func(k int) string { return l[m[2*k]:m[2*k+1]] }
		x, y := sorted2(sub(1)+" "+sub(3), sub(2)+" "+sub(4))
		return l[:m[0]] + "join " + x + " with " + y
	}
	l = commuteAnd.ReplaceAllStringFunc(l, func(s string) string {
		m := commuteAnd.FindStringSubmatch(s)
		a, b, rest := m[1], m[2], " key on"
		if a == "" {
			a, b, rest = m[3], m[4], " before"
		}
		x, y := sorted2(a, b)
		return x + " and " + y + rest
	})
	return commuteList.ReplaceAllStringFunc(l, func(s string) string {
		m := commuteList.FindStringSubmatch(s)
		x, y := sorted2(m[1], m[2])
		return "(" + x + ", " + y + ") are"
	})
}

// synthRecordAt is record i of the synthetic bank, planted or not.
func synthRecordAt(seed int64, i, trajs int) review.Record {
	rec := synthRecord(seed, i, trajs)
	if i == 0 {
		return rec
	}
	switch i % plantEvery {
	case plantDup:
		return paraphrase(synthRecord(seed, i-1, trajs), rec)
	case plantContra:
		if c, ok := contradict(synthRecord(seed, i-1, trajs), rec, seed); ok {
			return c
		}
	}
	return rec
}

// synonyms reword the templates of synthRecord without touching names or
// numbers.
var synonyms = strings.NewReplacer(
	"holds", "contains", "one value per", "with a value for each", "has one row per", "keeps a single row for every",
	"is never NULL for", "always has a value in", "values outside that are data-entry errors", "anything else is a data-entry error",
	" joins ", " links to ", "key on", "are keyed by", "with exactly one row per", "one row for each",
	"is stored as", "is kept as", "convert it before reporting", "convert it before you report",
	"compare them as strings", "string comparison works", "To compute", "For", ", join ", ": combine ", "filter ", "restrict to ",
	"and take", "then compute", "is NULL for rows before", "has NULLs for rows older than", "use COALESCE", "wrap it in COALESCE",
	"when summing", "for sums", "unlike the other groups", "which the other groups do not", "normalise before comparing", "normalise it first",
	"is refreshed monthly and lags", "is rebuilt monthly and trails", "recompute from", "rebuild the figure from",
	"require a minimum count", "insist on a minimum count", "read the definitions of", "look at the definitions of",
	"before the first real query", "before querying", "map group names to table suffixes first", "first translate group names into table suffixes",
	"break ties by", "settle ties on", "If a query on", "When a query against", "fails with", "errors with",
	"re-read its definition", "look at its definition again", "finds nothing", "returns no rows", "the keys differ", "the keys do not match",
	"map them first", "translate them first", "Check ", "Look at ", "before aggregating", "before you aggregate",
	"Answer single-number questions about", "For single-number questions about", "questions about", "questions on",
)

// paraphrase rewrites base as another curator run would have: other words,
// the trigger dropped or reworded, a step fewer; id, time and status are
// rec's.
func paraphrase(base, rec review.Record) review.Record {
	p := base
	p.ID, p.Created, p.Updated, p.Status, p.Provenance = rec.ID, rec.Created, rec.Updated, rec.Status, rec.Provenance
	p.Lemma = synonyms.Replace(base.Lemma)
	if strings.HasPrefix(p.Lemma, "In ") {
		if _, rest, ok := strings.Cut(p.Lemma, ", "); ok {
			p.Lemma = strings.ToUpper(rest[:1]) + rest[1:]
		}
	}
	switch rec.Priority % 3 {
	case 0:
		p.Trigger = ""
	case 1:
		p.Trigger = synonyms.Replace(base.Trigger)
	}
	if len(base.Steps) > 1 {
		p.Steps = append([]string(nil), base.Steps[:len(base.Steps)-1]...)
	}
	p.Scope.Tags = append([]string(nil), base.Scope.Tags[:1]...)
	p.Confidence = math.Round(rec.Confidence*100) / 100
	return p
}

var (
	unitClaim  = regexp.MustCompile(`(holds|is stored as|stores \S+ as) ([^;,]+)`)
	rangeClaim = regexp.MustCompile(`ranges from (\d+) to (\d+)`)
	nameClaim  = regexp.MustCompile(`renamed to (\w+)`)
)

// contradict restates base with its claim changed (another unit of its
// environment, another upper bound, another new name); false when base
// makes no claim.
func contradict(base, rec review.Record, seed int64) (review.Record, bool) {
	c := base
	c.ID, c.Created, c.Updated, c.Status, c.Provenance, c.Confidence = rec.ID, rec.Created, rec.Updated, rec.Status, rec.Provenance, rec.Confidence
	var e *synthEnv
	for k := range synthEnvs {
		if synthEnvs[k].name == base.Scope.Env {
			e = &synthEnvs[k]
		}
	}
	switch {
	case rangeClaim.MatchString(base.Lemma):
		m := rangeClaim.FindStringSubmatch(base.Lemma)
		hi, _ := strconv.Atoi(m[2])
		c.Lemma = strings.Replace(base.Lemma, m[0], "ranges from "+m[1]+" to "+strconv.Itoa(hi*2+7), 1)
	case nameClaim.MatchString(base.Lemma) && e != nil:
		m := nameClaim.FindStringSubmatch(base.Lemma)
		other := e.keys[0]
		for _, k := range e.keys {
			if k != m[1] && !strings.Contains(base.Lemma, k) {
				other = k
				break
			}
		}
		if other == m[1] {
			return rec, false
		}
		c.Lemma = strings.Replace(base.Lemma, m[0], "renamed to "+other, 1)
	case unitClaim.MatchString(base.Lemma) && e != nil:
		m := unitClaim.FindStringSubmatch(base.Lemma)
		r := synthRNG(seed, 4, int(rec.Created.Unix()))
		for range 8 {
			u := pick(r, e.units)
			if !strings.Contains(u, m[2]) && !strings.Contains(m[2], u) && !sharesWord(u, m[2]) {
				c.Lemma = strings.Replace(base.Lemma, m[0], m[1]+" "+u, 1)
				return c, true
			}
		}
		return rec, false
	default:
		return rec, false
	}
	return c, true
}

func sharesWord(a, b string) bool {
	for _, w := range strings.Fields(strings.ToLower(a)) {
		for _, v := range strings.Fields(strings.ToLower(b)) {
			if w == v {
				return true
			}
		}
	}
	return false
}
