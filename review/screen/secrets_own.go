package screen

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ownSecret is one of this package's secret rules with its keywords.
type ownSecret struct {
	rule *secretRule
	keys []string
}

// ownSecretRules are the secrets gitleaks' default rules leave out and a
// memory bank must not hold: a password in a URL's user info
// (postgres://app:pw@db), in a key=value connection string
// (Server=db;User Id=app;Password=pw), or stated in prose ("the admin
// password is Winter2024!"). Placeholders (${DB_PASSWORD}, <password>,
// ****, {{pass}}) are not secrets.
func ownSecretRules() []ownSecret {
	return []ownSecret{
		{rule: &secretRule{id: "url-password", reason: "a password in a URL's user info (scheme://user:password@host)",
			re:      regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'"<>]{1,64}:([^\s/@'"<>]{3,128})@[\w.-]+`),
			valueOK: notPlaceholder, before: 32, after: ownAfter},
			keys: []string{"://"}},
		{rule: &secretRule{id: "connection-string-password", reason: "a password in a key=value connection string",
			re:       regexp.MustCompile(`(?i)(?:^|[\s;'"])(?:password|pwd|passwd)\s*=\s*([^\s;'"&]{3,128})`),
			lineMust: regexp.MustCompile(`(?i)\b(?:host|server|data source|user id|uid|user|username|dbname|database|initial catalog|port)\s*=`),
			valueOK:  notPlaceholder, before: ownBefore, after: ownAfter},
			keys: []string{"password", "pwd", "passwd"}},
		{rule: &secretRule{id: "password-in-prose", reason: "a password stated in the text",
			// (?:^|[^\pL\pN_]) and not \b, which knows ASCII words only
			re: regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:password|passwd|passphrase|passcode|pwd|mot de passe|contraseña|senha|passwort|kennwort|пароль|密码|密碼|パスワード)` +
				`(?:\s+[\pL\pN'’.@_-]{1,40}){0,3}?\s*(?:is|was|=|:|：|es|est|ist|é|это|是|は)\s*[:=]?\s*["'\x60“]?([^\s"'\x60”]{6,64})`),
			valueOK: proseSecret, before: ownBefore, after: ownAfter},
			keys: []string{"password", "passwd", "passphrase", "passcode", "pwd", "mot de passe", "contraseña", "senha", "passwort",
				"kennwort", "пароль", "密码", "密碼", "パスワード"}},
		{rule: &secretRule{id: "password-in-list", reason: "a password given after the word password",
			re:      regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:password|passwd|passwort|pwd)\s+["'\x60]?([^\s"'\x60,;]{6,64})`),
			valueOK: strongSecret, before: ownBefore, after: ownAfter},
			keys: []string{"password", "passwd", "passwort", "pwd"}},
		{rule: &secretRule{id: "secret-in-prose", reason: "a secret, token or key stated in the text",
			re: regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(?:secret|token|api key|access key|signing key|private key|client secret|signing secret|webhook secret)` +
				`(?:\s+[\pL\pN'’._-]{1,30}){0,2}?\s+(?:is|was|=|:)\s*["'\x60“]?([A-Za-z0-9_\-+/=.]{16,200})`),
			entropy: 3.5, valueOK: tokenLike, before: ownBefore, after: ownAfter},
			keys: []string{"secret", "token", "api key", "access key", "signing key", "private key"}},
		{rule: &secretRule{id: "basic-auth-header", reason: "HTTP basic credentials (user:password in base64)",
			re:      regexp.MustCompile(`(?i)\bauthorization\s*[:=]\s*["']?basic\s+([a-z0-9+/]{8,}={0,2})`),
			valueOK: basicCredentials, before: 64, after: ownAfter},
			keys: []string{"basic"}},
	}
}

// The window around an own rule's keyword: its match starts at most one
// rune before the keyword (the word boundary) and ends within a few
// hundred bytes after it (three words of at most 40 letters, a verb, a
// value of at most 200 bytes).
const (
	ownBefore = 8
	ownAfter  = 768
)

// strongSecret accepts what can only be a password when no "is" or ":"
// says so: at least three of upper case, lower case, digits, symbols.
func strongSecret(v string) bool {
	if !proseSecret(v) {
		return false
	}
	var classes [4]bool
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			classes[0] = true
		case r >= 'a' && r <= 'z':
			classes[1] = true
		case r >= '0' && r <= '9':
			classes[2] = true
		default:
			classes[3] = true
		}
	}
	n := 0
	for _, c := range classes {
		if c {
			n++
		}
	}
	return n >= 3
}

// tokenLike accepts a value that mixes letters and digits and is not a
// path or identifier.
func tokenLike(v string) bool {
	var letter, digit bool
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		}
	}
	return letter && digit && notPlaceholder(v) && !reIdentifierLike().MatchString(v) && strings.Count(v, "/") < 3
}

// basicCredentials accepts base64 that decodes to user:password.
func basicCredentials(v string) bool {
	d, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		d, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	if err != nil {
		return false
	}
	i := strings.IndexByte(string(d), ':')
	return i > 0 && i < len(d)-1 && utf8.Valid(d)
}

var rePlaceholderValue = lazyRE(`(?i)^(?:\$\{?[\w.]+\}?|\{\{[^}]*\}\}|<[^>]*>|\[[^\]]*\]|%[\w(][^%]*%?|\*+|x+|\.+|_+|-+|#+|` +
	`pass(?:word)?|passwd|pwd|secret|changeme|your[_-]?password|password[_-]?here|redacted|hidden|none|null|example|user|admin|env:\w+|\$\(.*\))$`)

func notPlaceholder(v string) bool {
	v = strings.Trim(v, `"'`)
	// a value that opens like a template ("<your password>" cut at the
	// space, "${PASS", "{{pw") is one
	return v != "" && !strings.ContainsAny(v[:1], "<{$[%") && !rePlaceholderValue().MatchString(v) && !strings.Contains(v, "[redacted")
}

// proseSecret accepts what reads like a password rather than a word:
// letters with digits or symbols, and not a placeholder.
func proseSecret(v string) bool {
	v = strings.TrimRight(v, ".,;:!?)")
	if len(v) < 6 || !notPlaceholder(v) {
		return false
	}
	var letter, digit, symbol bool
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
			letter = true
		default:
			symbol = true
		}
	}
	if !letter || strings.ContainsAny(v, "()[]{}") || reIdentifierLike().MatchString(v) {
		return false
	}
	return digit || symbol || caseChanges(v) >= 4
}

// caseChanges counts switches between upper and lower case ("KxyuIWda"
// has 4; "PostgreSQL" 2): random letters change case often, words rarely.
func caseChanges(v string) int {
	n, prev := 0, 0
	for _, r := range v {
		c := 0
		if r >= 'A' && r <= 'Z' {
			c = 1
		} else if r >= 'a' && r <= 'z' {
			c = 2
		}
		if c != 0 && prev != 0 && c != prev {
			n++
		}
		if c != 0 {
			prev = c
		}
	}
	return n
}

// reIdentifierLike is a column, file or function name (password_hash,
// users.pw_digest, hash.py).
var reIdentifierLike = lazyRE(`^[a-z]+(?:[_.][a-z0-9]+)+$`)
