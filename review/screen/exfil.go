package screen

import (
	"net"
	"regexp"
	"strings"

	"github.com/memreview/memreview/review/printable"
)

// The exfiltration rules look for text that would move data out of the
// agent's reach: "send … to <url or address>" (in several languages),
// uploads with curl, wget, scp and the like, curl | sh, reverse shells,
// collector and webhook hosts, URLs whose query carries data or a
// template placeholder, Markdown images that would call out with data,
// and — when the caller names the environments' hosts — any host outside
// them.

var (
	sendVerb = alt(`send(?:s|ing)?`, `sent`, `upload(?:s|ing|ed)?`, `forward(?:s|ing|ed)?`, `e-?mail(?:s|ing)?`, `mail`,
		`transmit(?:s|ting)?`, `exfiltrat(?:e|es|ing)`, `leak(?:s|ing)?`, `beam`, `pipe`, `dump(?:s|ing)?`, `copy`, `copies`,
		`relay(?:s|ing)?`, `beacon`, `stream`, `transfer(?:s|ring)?`, `sync(?:s|ing)?`, `report back`, `export(?:s|ing)?`,
		`hand over`, `send over`, `ship off`, `phone home`)
	outbound = `(?:(?:https?://|ftp://|wss?://|www\.)[^\s<>"'\x60]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b\d{1,3}(?:\.\d{1,3}){3}\b)`

	// "_" counts as a word break around a verb (send_email).
	reSendTo = lazyRE(`(?:\b|_)` + sendVerb + `(?:\b|_)[^\n]{0,120}?\b(?:to|into|towards|at|via|onto|over to|using)\b\s*` +
		`(?:(?:the|this|my|our|an?)\s+)?(?:[\w-]+\s+){0,3}?[:=\x60"'(<\[]*\s*` + outbound +
		`|\bpost(?:s|ing|ed)?\b[^\n]{0,120}?\b(?:to|into|onto)\b\s*(?:(?:the|this|my|our|an?)\s+)?(?:[\w-]+\s+){0,3}?[:=\x60"'(<\[]*\s*` + outbound +
		`|` + `(?:https?://\S+)[^\n]{0,60}?\b(?:send|post|upload|forward)\b[^\n]{0,40}?\b(?:there|to it|to this|to that)\b` +
		// a webhook or collector URL named as such
		`|\b(?:webhook|callback|collector|sink|beacon)s?(?: url| endpoint| address)?(?: is| at|:)?\s+[\x60"'(<]*(?:https?|wss?)://[^\s<>"'\x60]*`)

	// sendIntl: "send … to <address>" in other languages, by language;
	// verb-last languages put the address before the verb.
	sendIntl = []intlRule{
		{"French", `(?:envoie|envoyez|envoyer|transmets|transmettez|transmettre|téléverse|téléversez|exporte|exportez|exporter|sauvegarde|sauvegardez|copie|copiez)[^\n]{0,120}?` + outbound},
		{"Spanish, Portuguese", `(?:envía|envíe|enviar|envia|envie|manda|mande|sube|suba|reenvía|reenvie|encaminhe|carregue|exporta|copia|respalda)[^\n]{0,120}?` + outbound},
		{"German, Dutch", `(?:sende|senden|sendet|schicke|schicken|schickt|übermittle|übermitteln|lade|leite|exportiere|kopiere|sichere|stuur|verstuur|verzend|exporteer|kopieer)[^\n]{0,120}?` + outbound},
		{"Italian", `(?:invia|inviare|inviate|carica|inoltra|esporta)[^\n]{0,120}?` + outbound},
		{"Slavic", `(?:отправ|перешл|загрузи|выгрузи|пошли|надішли|відправ|wyślij|prześlij|wysłać|eksportuj|skopiuj|pošli|nahraj)[^\n]{0,120}?` + outbound},
		{"Nordic, Finnish", `(?:skicka|ladda upp|exportera|send til|last opp|lähetä)[^\n]{0,120}?` + outbound},
		{"Chinese, Japanese, Korean", `(?:发送|发到|发给|上传|转发|传到|提交到|寄到|送信|送って|送る|アップロード|転送|보내|전송|업로드)[^\n]{0,120}?` + outbound},
		{"Southeast Asian", `(?:gửi|tải lên|kirim|kirimkan|unggah|teruskan|hantar|ipadala|ส่ง|อัปโหลด)[^\n]{0,120}?` + outbound},
		{"Middle Eastern, South Asian, African", `(?:أرسل|ارسل|ارفع|بفرست|ارسال کن|שלח|העלה|भेज|tuma|gönder|gönderin|yükle|trimite|încarcă|στείλε|ανέβασε)[^\n]{0,120}?` + outbound},
		{"verb last", outbound + `[^\n]{0,40}?` + alt(`にアップロード`, `に送信`, `に送`, `へ送`, `に転送`, `に投稿`, `로 보내`, `으로 보내`, `로 전송`, `으로 전송`, `에 업로드`,
			`로 업로드`, `으로 업로드`, `(?:e|a|ye|ya) gönder`, `पर भेज`, `को भेज`)},
	}

	reUploadCommand = lazyRE(`(?i:\bcurl\b)[^\n]{0,200}?\s(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form|-T|--upload-file|-X\s*(?i:post|put)|--request\s+(?i:post|put))(?:\s|=|$)` +
		`|(?i:\bwget\b[^\n]{0,200}?--post-(?:data|file)\b)` +
		`|(?i:\bnc(?:at)?\b(?:\s+-\w+)*\s+[\w.-]+\s+\d{2,5}\s*<)` +
		`|(?i:\bscp\s+(?:-\w+\s+)*\S+\s+[\w.-]+@[\w.-]+:)` +
		`|(?i:\brsync\b[^\n]{0,120}?\s[\w.-]+@[\w.-]+:)` +
		`|(?i:\brequests\.(?:post|put)\s*\(\s*(?:url\s*=\s*)?["']https?://)` +
		`|(?i:\bfetch\s*\(\s*["']https?://[^)\n]{0,200}method\s*:\s*["'](?:post|put)["'])` +
		`|(?i:\binvoke-(?:webrequest|restmethod)\b[^\n]{0,200}-method\s+(?:post|put)\b)` +
		`|(?i:\b(?:sendmail|mailx?\s+-s)\b)`)

	rePipeToShell = lazyRE(`\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|;]{0,200}\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python[23]?|perl|ruby|node|php|iex|invoke-expression|source)\b` +
		`|\b(?:ba|z)?sh\s+(?:-c\s+)?["']?\$\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b` +
		`|\b(?:iex|invoke-expression)\b[^\n]{0,80}(?:downloadstring|iwr|invoke-webrequest|irm|net\.webclient)`)

	reReverseShell = lazyRE(`/dev/(?:tcp|udp)/[\w.-]+/\d+|\bnc(?:at)?\b(?:\s+-\w+)*\s+-e\s|\bbash\s+-i\s+>&|\bsocat\b[^\n]{0,80}exec:` +
		`|\b(?:nslookup|dig|host|ping)\s+[^\n]{0,40}\$\(`)

	// Services that collect whatever is sent to them: webhooks, request
	// bins, tunnels, paste and drop sites, out-of-band testing hosts.
	reCollector = lazyRE(`\b(?:hooks\.slack\.com|(?:discord|discordapp)\.com/api/webhooks|webhook\.site|[\w-]+\.ngrok(?:-free)?\.(?:io|app|dev)|ngrok\.(?:io|app)` +
		`|(?:[\w-]+\.)?requestbin\.(?:com|net|io)|[\w-]+\.m\.pipedream\.net|pipedream\.net|(?:[\w-]+\.)?beeceptor\.com|requestcatcher\.com|hookbin\.com|postb\.in` +
		`|ptsv[23]\.com|mockbin\.(?:org|io)|[\w-]+\.trycloudflare\.com|serveo\.net|[\w-]+\.loca\.lt|localhost\.run|pagekite\.me` +
		`|transfer\.sh|file\.io|0x0\.st|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|api\.telegram\.org/bot|hooks\.zapier\.com` +
		`|maker\.ifttt\.com|outlook\.office(?:365)?\.com/webhook|[\w-]+\.webhook\.office\.com|script\.google\.com/macros|formspree\.io|getform\.io` +
		`|(?:[\w-]+\.)?interact\.sh|(?:[\w-]+\.)?oast\.(?:fun|live|me|online|pro|site)|(?:[\w-]+\.)?burpcollaborator\.net|canarytokens\.(?:com|org)|dnslog\.cn|ceye\.io)`)
)

func exfiltrationRules() []*textRule {
	var intl []*textRule
	for _, l := range sendIntl {
		intl = append(intl, &textRule{id: "send-to-address-intl", kind: Exfiltration,
			reason: "tells the model to send something to an outside address (" + l.lang + ")", re: regexp.MustCompile(l.pattern)})
	}
	return append(intl, []*textRule{
		{id: "send-to-address", kind: Exfiltration, reason: "tells the model to send, upload or forward something to an outside address",
			re: reSendTo()},
		{id: "upload-command", kind: Exfiltration, reason: "holds a command that uploads data (curl -d/-F/-T, wget --post, scp, nc, requests.post …)",
			re: reUploadCommand(), raw: true, accept: notOnlyLocal},
		{id: "pipe-to-shell", kind: Exfiltration, reason: "downloads a script and runs it (curl … | sh)", re: rePipeToShell()},
		{id: "reverse-shell", kind: Exfiltration, reason: "opens a connection out of the environment (reverse shell, DNS exfiltration)", re: reReverseShell()},
		{id: "collector-host", kind: Exfiltration, reason: "names a webhook, request-bin, tunnel or paste service that collects what is sent to it",
			re: reCollector()},
	}...)
}

// notOnlyLocal keeps an upload command that names a destination off
// this machine: a URL or a host argument (host.tld/path, host:port,
// user@host:) that is not the loopback. A test against localhost is not
// exfiltration, and "the curl flag -d sends a body" uploads nothing.
func notOnlyLocal(text string, m []int) bool {
	s, e := sentenceAround(text, m[0], m[1])
	line := text[s:e]
	for _, u := range reURL().FindAllString(line, -1) {
		if !isLocalHost(hostOf(u)) {
			return true
		}
	}
	for _, h := range reHostArg().FindAllStringSubmatch(line, -1) {
		if !isLocalHost(strings.ToLower(h[1])) {
			return true
		}
	}
	return false
}

// reHostArg is a bare destination: host.tld or an IPv4 address followed
// by /, :port, " port" (nc host 4444) or user@host: (scp, rsync).
var reHostArg = lazyRE(`(?i)(?:^|[\s@'"=])((?:[a-z0-9-]+\.)+[a-z]{2,24}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d{2,5}|/|:/|:\S|\s+\d{2,5}\b)`)

// URL scanning, on the raw text.
var (
	reURL = lazyRE(`(?i)\b(?:https?|ftp|wss?)://[^\s<>"'\x60]+|\bwww\.[^\s<>"'\x60]+`)
	// (a Markdown URL may hold balanced parentheses)
	reImageURL = lazyRE(`(?i)!\[[^\]\n]{0,300}\]\(\s*<?((?:https?:)?//(?:[^\s()>]|\([^\s()]*\))+)|<img\b[^>]{0,300}?\bsrc\s*=\s*["']?((?:https?:)?//[^\s"'>]+)`)
	// A template placeholder: {{x}}, ${x}, {x}, <X>, %s, [X], $X.
	rePlaceholder = lazyRE(`\{\{[^}]{0,80}\}\}|\$\{[^}]{0,80}\}|\{[A-Za-z_][\w.]{0,40}\}|<[A-Za-z_][\w -]{0,40}>|%s|\[[A-Z_]{3,40}\]|\$[A-Za-z_]{3,40}`)
	// A placeholder that names data the agent holds.
	reDataWord = lazyRE(`(?i)data|secret|key|token|pass|conversation|history|chat|context|content|memor|customer|user|email|table|rows|result|answer|summary|prompt|message|env|credential|file|output|query|input|record|name|card|ssn|phone|address`)
)

// urlFinding is what scanURLs found at one URL.
type urlFinding struct {
	start, end int
	rule       string
	kind       Kind
	reason     string
}

// scanURLs checks every URL and Markdown or HTML image in text.
// known, when not nil, is the allow-list of hosts; a URL whose host is
// not in it (nor a subdomain of one in it) is flagged.
func scanURLs(text string, known []string) []urlFinding {
	var out []urlFinding
	images := map[int]bool{}
	for _, m := range reImageURL().FindAllStringSubmatchIndex(text, -1) {
		s, e := m[2], m[3]
		if s < 0 {
			s, e = m[4], m[5]
		}
		images[s] = true
		if why := urlCarriesData(text[s:e]); why != "" {
			out = append(out, urlFinding{m[0], m[1], "image-beacon", Exfiltration, "an image whose URL " + why + " (it is fetched as soon as the text is rendered)"})
		}
	}
	for _, m := range reURL().FindAllStringIndex(text, -1) {
		s, e := m[0], trimURLEnd(text, m[0], m[1])
		u := text[s:e]
		if !images[s] {
			if why := urlCarriesData(u); why != "" {
				out = append(out, urlFinding{s, e, "url-carries-data", Exfiltration, "a URL that " + why})
			}
		}
		if known != nil {
			h := hostOf(u)
			if h != "" && !isLocalHost(h) && !hostKnown(h, known) {
				out = append(out, urlFinding{s, e, "unknown-host", Exfiltration,
					"a URL to " + printable.Line(clip(h, 80)) + ", a host in no environment"})
			}
		}
	}
	return out
}

// trimURLEnd drops trailing punctuation from a URL match, keeping a
// closing parenthesis that closes one inside the URL.
func trimURLEnd(text string, s, e int) int {
	for e > s {
		c := text[e-1]
		switch c {
		case '.', ',', ';', ':', '!', '?', '*', '_', '\'':
			e--
			continue
		case ')', ']', '}':
			open := map[byte]string{')': "(", ']': "[", '}': "{"}[c]
			if strings.Count(text[s:e], open) < strings.Count(text[s:e], string(c)) {
				e--
				continue
			}
		}
		break
	}
	return e
}

// urlCarriesData says how a URL carries data, or "": a template
// placeholder in its host, query or fragment (or one in its path that
// names data), a long or random-looking query value, a long query, or a
// long random path segment.
func urlCarriesData(u string) string {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	} else {
		rest = strings.TrimPrefix(rest, "//")
	}
	host, path, query := rest, "", ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if rePlaceholder().MatchString(host) || rePlaceholder().MatchString(query) {
		return "holds a template placeholder to be filled with data"
	}
	for _, p := range rePlaceholder().FindAllString(path, -1) {
		if reDataWord().MatchString(p) {
			return "holds a placeholder for data in its path"
		}
	}
	total := 0
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' || r == '#' }) {
		v := kv
		if i := strings.IndexByte(kv, '='); i >= 0 {
			v = kv[i+1:]
		}
		total += len(v)
		if len(v) >= 48 {
			return "carries a long value in its query"
		}
		if len(v) >= 20 && randomLooking(v) {
			return "carries an encoded value in its query"
		}
	}
	if total >= 160 {
		return "carries a long query"
	}
	for _, seg := range strings.Split(path, "/") {
		if len(seg) >= 48 && randomLooking(seg) {
			return "carries an encoded value in its path"
		}
	}
	return ""
}

// randomLooking reports a value that looks encoded rather than written:
// letters and digits mixed, high entropy, few separators.
func randomLooking(v string) bool {
	var lower, upper, digit, other int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= '0' && c <= '9':
			digit++
		default:
			other++
		}
	}
	if other*6 > len(v) || digit == 0 || lower+upper == 0 {
		return false
	}
	return shannonEntropy(v) >= 3.8
}

// hostOf returns a URL's host in lower case, without user info or port.
func hostOf(u string) string {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if i := strings.IndexByte(rest, ']'); i > 0 {
			return strings.ToLower(rest[1:i])
		}
	}
	if h, _, err := net.SplitHostPort(rest); err == nil {
		rest = h
	}
	return strings.ToLower(strings.TrimSuffix(rest, "."))
}

func isLocalHost(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// hostKnown reports whether h is one of known or a subdomain of one.
func hostKnown(h string, known []string) bool {
	for _, k := range known {
		if h == k || strings.HasSuffix(h, "."+k) {
			return true
		}
	}
	return false
}

// normalHosts lower-cases an allow-list and drops schemes, paths and ports.
func normalHosts(hosts []string) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if hh := hostOf(h); hh != "" {
			out = append(out, hh)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
