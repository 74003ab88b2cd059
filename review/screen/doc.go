// Package screen screens text that is about to enter the memory bank —
// a proposal's lemma, trigger, steps and checks, an imported record, an
// agent's write — for four kinds of trouble, and redacts secrets.
//
// It owns the rules and nothing else: no SQL, no files, no UI, no
// network. It takes plain strings (or named fields) and gives findings
// back, so every floor can use it: import validation, the curator, the
// MCP server, the TUI's highlights. It imports only the standard library,
// review/printable (to escape what a reason quotes) and
// github.com/BurntSushi/toml (to read the embedded secret rules) — not
// package review.
//
// # Findings
//
// Screen(text) and ScreenFields(fields...) return Findings: a Kind
// (instruction, exfiltration, secret, hidden-text), a span as BYTE
// offsets into the text (half-open, always on rune boundaries; RuneSpan
// converts), the rule that fired and a one-line reason. A reason never
// quotes the span, so no finding repeats a secret; HasSecret says
// whether a caller must refuse. Redact replaces each secret with
// "[redacted: RULE]". A Screener made WithKnownHosts also flags every URL
// whose host is not one of the environments'.
//
//   - instruction: text aimed at a model rather than describing the
//     environment. The rules look for overrides of prior instructions
//     (in about thirty languages), chat-template role markers and
//     transcripts, a new identity, mode or "real task", secrecy toward
//     the user or operator and dropped confirmations, text injected into
//     every answer, blind trust, tool-call markup, tool calls with
//     destructive or outbound arguments, and destructive commands. They
//     do not fire on imperatives about the data ("always join on
//     item_id", "never use column X, it was dropped", "you must obtain
//     the user id first"): see instruction.go for how.
//   - exfiltration: "send/post/upload … to <url or address>", upload
//     commands (curl -d/-F/-T, wget --post, scp, nc, requests.post …),
//     curl | sh, reverse shells, webhook, request-bin and tunnel hosts,
//     URLs whose query carries data or a template placeholder, and
//     Markdown or HTML images that would call out with data.
//   - secret: gitleaks' rules (below) plus passwords in URLs, in
//     key=value connection strings and in prose, secrets stated in prose
//     and HTTP basic credentials.
//   - hidden-text: Unicode tag characters, bidi controls, zero-width
//     runs, variation-selector runs, control characters, words and hosts
//     mixing Latin with look-alike letters, punycode hosts that decode
//     to such a mix, HTML comments, invisible markup, Markdown comments,
//     padding, and long base64 or hex blobs and runs of escapes — which
//     are decoded once and screened again, so an encoded instruction or
//     secret is reported as what it is.
//
// The instruction and exfiltration rules read a folded view of the text
// (fold.go): lower case, with full-width, mathematical and circled
// letters, Cyrillic and Greek look-alikes inside Latin words, leetspeak,
// zero-width and bidi characters and letter spacing undone; spans are
// mapped back to the original.
//
// # Secret rules: gitleaks' default configuration
//
// The secret rules are not written here from memory. rules/gitleaks.toml
// is gitleaks' default configuration file (config/gitleaks.toml) from
// gitleaks v8.30.1, embedded unchanged with go:embed; its licence (MIT)
// is rules/gitleaks.LICENSE. sha256 of the file:
// e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf. (The
// module proxy records v8.30.1 at commit 8d1f98c7; the repository's
// v8.30.1 tag now points at 83d9cd68; the file is the same at both.)
//
// Why this file: it is the most widely used open rule set for secrets in
// text, maintained with tests for every rule (cloud, VCS, LLM-provider,
// chat-platform, payment and CI tokens, JWTs, private keys — 222 rules,
// 217 of which apply to text without a file path),
// and its rules are Go regular expressions, so they run unchanged under
// the standard library's regexp. Why not the gitleaks Go module itself:
// as a library it brings viper, cobra, zerolog, archive readers and a
// WebAssembly regex engine into every memreview binary, for a detector
// built around files and git history. This package runs the rule file as
// gitleaks runs a fragment read from standard input: the keyword
// prefilter (an Aho–Corasick pass, keywords.go), the regex, the secret
// group, the Shannon-entropy floor, the global and per-rule allowlists
// (regexes against the secret, the match or the line; stop words), and
// generic rules yielding to a specific rule on the same secret. Rules
// that only a file path can trigger are skipped, as gitleaks skips them
// on standard input, and the inline "gitleaks:allow" marker is not
// honoured (in a proposal it would be the attacker's switch). To update:
// replace rules/gitleaks.toml with a newer release's file, change
// GitleaksVersion and the checksum above, and run the tests.
//
// # Measured
//
// The labelled set in testdata/screen and TestLabelledSet measure recall
// per kind and false positives on benign records (the sample world's and
// the real data's); BENCHMARKS.md ("The poisoning screen") has the
// figures, the held-out ones as first measured, and the cost per proposal.
//
// # The LLM judge
//
// judge.go defines an optional second opinion for what the rules miss:
// the Judge interface, the prompt, and the parser of its tool-call
// answer, whose findings are marked Source "llm". This package makes no
// call; the curator layer implements Judge over its endpoint.
package screen
