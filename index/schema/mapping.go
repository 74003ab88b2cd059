// Package schema is what each bank item becomes in Bleve: the mapping
// (fields, analyzers, what is stored, faceted, sorted), its version, and
// the documents of records, proposals and trajectories. The index builds
// and catches up with these documents, the plan searches their fields,
// and the tail indexes its items in memory with the same mapping.
//
// It imports Bleve, index/bleveext (the "_all" field) and review's domain
// types.
package schema

import (
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/highlight"
	"github.com/blevesearch/bleve/v2/search/highlight/format/plain"
	simplefrag "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simplehl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"

	"github.com/memreview/memreview/review"
)

// Version changes whenever the mapping or the document shape does; an
// index written under another version is rebuilt on Open.
//
// Version 2: dates at day resolution, doc values only on the fields that
// are faceted or sorted, stored values only where something reads them.
//
// Version 3: "_all" holds term frequencies only, no positions
// (bleveext.AllField); phrases on it are checked on the text fields
// (bleveext.AllPhraseQuery) and highlights are taken from them (the
// plan's fragments).
//
// Version 4: no "sample" field (version 3 parted the documents by a hash
// of their id for estimated facets; runs of doc numbers do it now,
// bleveext.BlockSampleQuery).
//
// Version 5: the date fields hold their day as one keyword term
// ("2026-11-01"), not bleve's date field (16 prefix terms a value, for
// numeric ranges): a build takes about 9% less CPU and the index 14%
// less room. Date ranges are ranges of those terms (the plan rewrites
// them): they select the same documents, and score as such ranges do.
//
// Version 6: a trajectory's "passed" is "unknown" when its outcome is not
// a reward (review.Outcome.PassedTerm), not "false".
const Version = "6"

// KeywordAnalyzer indexes a whole value as one lower-cased term, so that
// category:Fact and category:fact find the same records: query-string field
// queries analyse their text with the field's analyzer.
const KeywordAnalyzer = "memreview_keyword"

// Highlight markers wrapped around each match in Hit.Fragments. The text
// between and around them is the stored field text, not HTML-escaped.
const (
	MarkStart = "<mark>"
	MarkEnd   = "</mark>"
)

// HighlighterName is the bleve highlighter that writes MarkStart/MarkEnd.
const HighlighterName = "memreview"

// AnyScope is indexed into scope_env and scope_tags for records without an
// env or without tags, so Retrieve can ask for "this env or none" with terms.
const AnyScope = "(any)"

// Field groups of the mapping.
var (
	// KeywordFields hold whole values, lower-cased at index and query time.
	KeywordFields = []string{"type", "id", "category", "env", "status", "tags", "op", "suspect", "passed", "scope_env", "scope_tags"}
	// TextFields are analysed as English and searched by bare terms.
	TextFields = []string{"lemma", "trigger", "steps", "rationale", "task", "answer", "tools"}
	// NumericFields and DateFields support range queries and sorting;
	// a date field holds its day as a keyword term (DayFormat).
	NumericFields = []string{"confidence", "priority", "reward"}
	DateFields    = []string{"created", "updated"}
)

// storedFields are the keyword and numeric fields whose values are read
// back from the index (Retrieve's weighting); the text fields are stored
// for highlighting.
var storedFields = map[string]bool{"priority": true, "suspect": true}

// DocValueFields are the fields that can be faceted and sorted on.
func DocValueFields() []string {
	var all []string
	all = append(all, KeywordFields...)
	all = append(all, NumericFields...)
	return append(all, DateFields...)
}

// DayFormat is how a date field holds its day.
const DayFormat = "2006-01-02"

// dayTerm is t's day as a date field holds it.
func dayTerm(t time.Time) string { return Day(t).Format(DayFormat) }

// Day truncates t to its day in UTC: dates are indexed at day resolution,
// which is what date queries (created:>"2026-01-01") and the screens use,
// and a day repeats across records where a timestamp does not (at
// 100,000 records the two date fields held 82% of the index's distinct
// terms).
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Fields lists every searchable field name, for help screens and for
// rejecting queries that name a field the index does not have.
func Fields() []string {
	var all []string
	all = append(all, KeywordFields...)
	all = append(all, TextFields...)
	all = append(all, "text")
	all = append(all, NumericFields...)
	all = append(all, DateFields...)
	return all
}

func init() {
	err := registry.RegisterHighlighter(HighlighterName, func(map[string]interface{}, *registry.Cache) (highlight.Highlighter, error) {
		return simplehl.NewHighlighter(simplefrag.NewFragmenter(200),
			plain.NewFragmentFormatter(MarkStart, MarkEnd), simplehl.DefaultSeparator), nil
	})
	if err != nil {
		panic(err)
	}
}

// New builds the index mapping: one document shape for all three
// kinds, told apart by the "type" keyword field, scored with BM25. Bare
// query terms search "_all", which holds the English text fields and the
// "text" catch-all: not bleve's composite field, which is turned off
// here, but a bleveext.AllField, which Add adds to every document.
func New() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = en.AnalyzerName
	im.DefaultField = "_all"
	err := im.AddCustomAnalyzer(KeywordAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     single.Name,
		"token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, err
	}

	// Only keyword, numeric and date fields are faceted or sorted (doc
	// values); only the text fields (highlighting) and Retrieve's priority
	// and suspect are read back (stored).
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range KeywordFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = KeywordAnalyzer
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.Store = storedFields[f]
		dm.AddFieldMappingsAt(f, fm)
	}
	for _, f := range TextFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.IncludeTermVectors = true // phrases and highlighting
		fm.DocValues = false
		dm.AddFieldMappingsAt(f, fm)
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = true
	text.DocValues = false
	dm.AddFieldMappingsAt("text", text)
	for _, f := range NumericFields {
		fm := bleve.NewNumericFieldMapping()
		fm.IncludeInAll = false
		fm.Store = storedFields[f]
		dm.AddFieldMappingsAt(f, fm)
	}
	// A date is indexed as its day, "2006-01-02", one keyword term whose
	// order is the days' (a range query is a range of terms, a sort the
	// terms' order), not as bleve's date field: its 16 prefix terms a
	// value cost a quarter of a build's time with the numeric fields'.
	for _, f := range DateFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = KeywordAnalyzer
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.Store = false
		dm.AddFieldMappingsAt(f, fm)
	}
	// bleve's composite "_all" would copy every text field's positions.
	dm.AddSubDocumentMapping(AllField, bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	return im, nil
}

// DocID is the bleve document id of an item: ids are unique per kind only.
func DocID(kind, id string) string { return kind + "/" + id }

// SplitDocID is DocID's inverse.
func SplitDocID(doc string) (kind, id string) {
	kind, id, ok := strings.Cut(doc, "/")
	if !ok {
		return "", doc
	}
	return kind, id
}

// Doc is a document to index; only the fields that are set are indexed.
type Doc map[string]interface{}

func (d Doc) set(field, v string) {
	if v != "" {
		d[field] = v
	}
}

func (d Doc) setList(field string, vs []string) {
	var keep []string
	for _, v := range vs {
		if v != "" {
			keep = append(keep, v)
		}
	}
	if len(keep) > 0 {
		d[field] = keep
	}
}

// RecordDoc is the document of a record.
func RecordDoc(r *review.Record) Doc {
	d := Doc{"type": "record", "id": r.ID,
		"confidence": r.Confidence, "priority": float64(r.Priority),
		"suspect": strconv.FormatBool(r.Suspect)}
	d.set("category", string(r.Category))
	d.set("env", r.Scope.Env)
	d.set("status", string(r.Status))
	d.setList("tags", r.Scope.Tags)
	d.set("lemma", r.Lemma)
	d.set("trigger", r.Trigger)
	d.setList("steps", r.Steps)
	if r.Scope.Env == "" {
		d["scope_env"] = AnyScope
	} else {
		d["scope_env"] = r.Scope.Env
	}
	if len(r.Scope.Tags) == 0 {
		d["scope_tags"] = AnyScope
	} else {
		d["scope_tags"] = r.Scope.Tags
	}
	if !r.Created.IsZero() {
		d["created"] = dayTerm(r.Created)
	}
	if !r.Updated.IsZero() {
		d["updated"] = dayTerm(r.Updated)
	}
	d.set("text", join(r.ID, string(r.Category), r.Scope.Env, strings.Join(r.Scope.Tags, " "), r.Scope.TaskFamily))
	return d
}

// ProposalDoc is the document of a proposal: its own fields plus those of
// the record it proposes.
func ProposalDoc(p *review.Proposal) Doc {
	d := Doc{"type": "proposal", "id": p.ID}
	d.set("op", string(p.Op))
	d.set("status", string(p.Status))
	d.set("rationale", p.Rationale)
	if !p.Created.IsZero() {
		d["created"] = dayTerm(p.Created)
	}
	text := []string{p.ID, string(p.Op), p.Trajectory, strings.Join(p.TargetIDs(), " ")}
	if r := p.Record; r != nil {
		d.set("category", string(r.Category))
		d.set("env", r.Scope.Env)
		d.setList("tags", r.Scope.Tags)
		d.set("lemma", r.Lemma)
		d.set("trigger", r.Trigger)
		d.setList("steps", r.Steps)
		d["confidence"] = r.Confidence
		d["priority"] = float64(r.Priority)
		text = append(text, string(r.Category), r.Scope.Env, strings.Join(r.Scope.Tags, " "))
	}
	d.set("text", join(text...))
	return d
}

// TrajectoryDoc is the document of a trajectory; its step contents go to the
// catch-all text field only.
func TrajectoryDoc(t *review.Trajectory) Doc {
	d := Doc{"type": "trajectory", "id": t.ID,
		"passed": t.Outcome.PassedTerm(), "reward": t.Outcome.Reward}
	d.set("env", t.Env)
	d.set("task", t.Task)
	var tools, text []string
	seen := map[string]bool{}
	addTool := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			tools = append(tools, name)
			// "book_reservation" is one token; let "book" find it too.
			text = append(text, strings.NewReplacer("_", " ", ".", " ", "-", " ").Replace(name))
		}
	}
	answer := ""
	for _, s := range t.Steps {
		for _, c := range s.ToolCalls {
			addTool(c.Name)
			text = append(text, c.Arguments, c.Result)
		}
		if s.Role == "tool" {
			addTool(s.Name)
		}
		text = append(text, s.Content)
		if s.Role == "assistant" && len(s.ToolCalls) == 0 && s.Content != "" {
			answer = s.Content
		}
	}
	if t.Distilled != nil && t.Distilled.Answer != "" {
		answer = t.Distilled.Answer
	}
	d.setList("tools", tools)
	d.set("answer", answer)
	if !t.Started.IsZero() {
		d["created"] = dayTerm(t.Started)
	}
	if !t.Ended.IsZero() {
		d["updated"] = dayTerm(t.Ended)
	}
	d.set("text", join(append([]string{t.ID, t.Env, t.Outcome.Notes}, text...)...))
	return d
}

// join joins the non-empty parts with newlines.
func join(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}
