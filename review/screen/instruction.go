package screen

import (
	"regexp"
	"strings"
)

// The instruction rules look for text that speaks to a model about its
// own instructions, identity, oversight or output — not for imperatives
// as such. A memory record is full of legitimate imperatives ("always
// join on item_id", "never use column X, it was dropped", "you must
// obtain the user id first"): those describe the environment or the
// task, and no rule here fires on them. What fires is:
//
//   - overriding prior instructions (in English and in other languages);
//   - chat-template role markers and transcripts;
//   - a new identity, mode or "real task" for the model;
//   - keeping things from the user or operator, dropping confirmations;
//   - injecting text into every answer; trusting whatever a tool says;
//   - tool-call markup, tool calls with destructive or outbound
//     arguments, stealthy actions, destructive shell and SQL commands.

var (
	overrideVerb = alt(`ignor(?:e|es|ed|ing)`, `disregard(?:s|ed|ing)?`, `forget(?:s|ting)?`, `overrid(?:e|es|ing)`,
		`overrule`, `bypass(?:es|ing)?`, `skip`, `discard`, `abandon`, `nullify`, `neglect`, `dismiss`,
		`set aside`, `put aside`, `throw out`, `pay no (?:attention|heed|mind) to`, `unlearn`, `disobey`,
		`(?:do not|don't|dont|no longer|stop|cease) (?:follow(?:ing)?|obey(?:ing)?|heed(?:ing)?|listen(?:ing)? to|comply(?:ing)? with|adher(?:e|ing) to|apply(?:ing)?)`)
	// Weaker verbs ("skip", "reset", "clear") count only with nouns that
	// name a model's instructions.
	overrideWeakVerb = alt(`skip`, `clear`, `wipe`, `erase`, `reset`, `drop`, `discard`, `abandon`, `dismiss`, `neglect`,
		`set aside`, `put aside`, `throw out`, `purge`, `flush`)
	overrideQual = alt(`all`, `any`, `every`, `previous(?:ly)?`, `prior`, `above`, `earlier`, `preceding`,
		`foregoing`, `former`, `original`, `initial`, `your`, `system`, `developer`, `safety`, `those`, `these`)
	overrideNoun = alt(`instructions?`, `prompts?`, `rules?`, `directives?`, `guidelines?`, `guidance`, `commands?`,
		`context`, `messages?`, `polic(?:y|ies)`, `constraints?`, `restrictions?`, `limitations?`,
		`programming`, `training`, `guardrails?`, `safeguards?`, `(?:safety|content) filters?`, `conditioning`, `alignment`,
		`moderation`, `directions`, `briefing`)
	overrideModelNoun = alt(`instructions?`, `prompts?`, `directives?`, `guidelines?`, `programming`, `training`, `guardrails?`,
		`safeguards?`, `conditioning`, `alignment`, `(?:safety|content) filters?`, `context`)

	reOverride = lazyRE(`\b` + overrideVerb + `\b` + sentence("40") + `\b` + overrideQual + `\b` +
		sentence("30") + `\b` + overrideNoun + `\b` +
		`|\b` + overrideWeakVerb + `\b` + sentence("40") + `\b` + overrideQual + `\b` + sentence("30") + `\b` + overrideModelNoun + `\b` +
		`|\b(?:` + overrideVerb + `|` + overrideWeakVerb + `)\s+(?:the |your |any )?` + overrideNoun + `\s+(?:that\s+)?you(?:'ve| have| were| are)?\s+(?:been\s+)?` +
		alt(`given`, `configured`, `programmed`, `trained`, `told`, `instructed`, `set up`, `got`, `received`) + `\b` +
		`|\b` + alt(`ignore`, `disregard`, `forget`, `override`, `bypass`) + ` (?:the |these |those |its |their )?` +
		alt(`instructions`, `system prompt`, `guardrails`, `programming`, `safety (?:rules|guidelines|filters|policy)`, `content policy`) + `\b` +
		`|\b` + alt(`ignore`, `disregard`) + ` (?:what )?(?:the |your )?` + alt(`user`, `human`, `operator`, `customer`) +
		`(?:'s|’s)?(?:\s+(?:and|question|request|message|instructions?|input|wishes|says|said|wants|asks)\b|\s*(?:$|[.,;!]))` +
		`|\b` + alt(`forget`, `ignore`, `disregard`) + ` (?:about )?` + alt(`everything`, `anything`, `all`) + `(?: that)? ` +
		alt(`above`, `before`, `prior`, `previously`, `so far`, `earlier`, `you (?:were|have been|'ve been|know)`, `i (?:said|told you)`, `else`) + `\b`)

	// Overrides in other languages, folded (lower case). No \b: Go's \b
	// knows ASCII words only.
	// overrideIntl: overrides in other languages, one rule per language,
	// each gated by its nouns for "instructions" and "rules". Patterns
	// are folded (lower case); no \b, which knows ASCII words only.
	overrideIntl = []intlRule{
		{"French", `(?:ignore[rz]?|oublie[rz]?|ne (?:tiens|tenez) pas compte d)[^.!?\n]{0,40}(?:instructions|consignes|règles|directives|indications)`},
		{"Spanish", `(?:ignora[rd]?|ignore|olvida[rd]?|olvide|omite|omita|haz caso omiso de|no sigas)[^.!?\n]{0,40}(?:instrucciones|reglas|indicaciones|directrices|órdenes)`},
		{"Portuguese", `(?:ignore|ignora[rd]?|esqueça|esqueca|desconsidere|desconsidera)[^.!?\n]{0,40}(?:instruções|instrucoes|regras|diretrizes|orientações)`},
		{"German", `(?:ignorier(?:e|en|t)?|vergiss|vergessen sie|missachte|missachten sie|befolge nicht)[^.!?\n]{0,40}(?:anweisungen|instruktionen|regeln|vorgaben|befehle|richtlinien)`},
		{"Italian", `(?:ignora|ignorate|dimentica|dimenticate|trascura)[^.!?\n]{0,40}(?:istruzioni|regole|indicazioni|direttive)`},
		{"Dutch", `(?:negeer|vergeet)[^.!?\n]{0,40}(?:instructies|regels|aanwijzingen)`},
		{"Polish", `(?:zignoruj|ignoruj|zapomnij)[^.!?\n]{0,40}(?:instrukcje|instrukcji|polecenia|zasady|reguły)`},
		{"Turkish", `(?:önceki|yukarıdaki|tüm|bütün)[^.!?\n]{0,30}(?:talimatları|talimatlari|kuralları|kurallari|komutları)[^.!?\n]{0,20}(?:yok say|unut|görmezden gel|dikkate alma)`},
		{"Russian, Ukrainian", `(?:игнорир|проигнорир|забудь|забудьте|не обращай|не обращайте|ігноруй|забудь)[^.!?\n]{0,40}(?:инструкци|правил|указани|команд|інструкці|вказівк)`},
		{"Chinese", `(?:忽略|无视|忽视|忘记|忘掉|不要理会|不要遵守|無視|忽略掉|別管|不用管)[^。！？\n]{0,12}(?:指令|指示|提示|规则|規則|说明|說明|设定|設定|命令|要求)`},
		{"Japanese", `(?:以前|前|上記|これまで|すべて|全て)の?[^。\n]{0,10}(?:指示|命令|ルール|プロンプト)[^。\n]{0,6}(?:無視|忘れ)`},
		{"Korean", `(?:이전|위의|모든|앞의)[^.\n]{0,10}(?:지시|명령|규칙|지침)[^.\n]{0,8}(?:무시|잊어)`},
		{"Arabic", `(?:تجاهل|انس|أهمل)[^.\n]{0,30}(?:التعليمات|الأوامر|القواعد)`},
		{"Hindi", `(?:पिछले|सभी|पहले के)[^।\n]{0,20}(?:निर्देशों|निर्देश|नियमों)[^।\n]{0,20}(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)`},
		{"Swedish, Norwegian, Danish", `(?:glöm|ignorera|strunta i|glem|ignorer|se bort fra)[^.!?\n]{0,40}(?:instruktion|instruksjon|regler|reglerna|reglene|reglerne|anvisning)`},
		{"Finnish, Czech, Slovak, Romanian, Hungarian", `(?:unohda|ohita|jätä huomiotta)[^.!?\n]{0,40}(?:ohjee|sääntö|säännö)`},
		{"Finnish, Czech, Slovak, Romanian, Hungarian", `(?:ignoruj|ignorujte|zapomeň|zapomeňte|zabudni)[^.!?\n]{0,40}(?:instrukc|pokyn|pravidl)`},
		{"Finnish, Czech, Slovak, Romanian, Hungarian", `(?:ignoră|ignorați|uită|uitați)[^.!?\n]{0,40}(?:instrucțiun|instructiun|regul)`},
		{"Finnish, Czech, Slovak, Romanian, Hungarian", `(?:hagyd figyelmen kívül|hagyja figyelmen kívül|felejtsd el|felejtse el)[^.!?\n]{0,40}(?:utasítás|szabály)|(?:utasítás|szabály)[^.!?\n]{0,40}(?:figyelmen kívül|felejtsd el)`},
		{"Greek", `(?:αγνόησε|αγνοήστε|ξέχασε|ξεχάστε)[^.!?\n]{0,40}(?:οδηγί|κανόν|εντολ)`},
		{"Indonesian, Malay, Tagalog, Swahili", `(?:abaikan|lupakan|acuhkan|jangan ikuti|balewalain|huwag pansinin|puuza|sahau)[^.!?\n]{0,40}(?:instruksi|perintah|aturan|arahan|petunjuk|arahan|tagubilin|panuto|maagizo|maelekezo|sheria)`},
		{"Hebrew", `(?:התעלם|התעלמי|תתעלם|שכח|שכחי)[^.!?\n]{0,30}(?:הוראות|ההוראות|הנחיות|כללים|הכללים)`},
		{"Persian, Urdu (object first or verb first)", `(?:دستورالعمل|دستورات|قوانین|ہدایات)[^.\n]{0,40}(?:نادیده بگیر|فراموش کن|نظر انداز|بھول جاؤ)|(?:نادیده بگیر|فراموش کن)[^.\n]{0,30}(?:دستورالعمل|دستورات|قوانین)`},
		{"Thai", `(?:ละเว้น|เพิกเฉย|ไม่ต้องสนใจ|ลืม)[^\n]{0,30}(?:คำสั่ง|คำแนะนำ|กฎ)`},
		{"Hindi (verb last)", `(?:निर्देशों|निर्देश|नियमों)[^।\n]{0,20}(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)`},
		{"Vietnamese", `(?:bỏ qua|phớt lờ|quên|lờ đi)[^.!?\n]{0,20}(?:mọi|tất cả|các|những)?[^.!?\n]{0,10}(?:hướng dẫn|chỉ dẫn|chỉ thị|lệnh) (?:trước|trên|cũ)`},
	}

	reRoleToken = lazyRE(`<\|\s*` + alt(`im_start`, `im_end`, `im_sep`, `system`, `user`, `assistant`, `endoftext`,
		`end_of_text`, `begin_of_text`, `eot_id`, `eom_id`, `start_header_id`, `end_header_id`, `fim_prefix`,
		`fim_middle`, `fim_suffix`, `tool`, `ipython`, `prompter`) + `\s*\|>` +
		`|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>` +

		`|\[` + alt(`system`, `admin`, `developer`, `sys`, `root`) + `(?: (?:message|note|override|prompt|instructions?|command))?\]` +
		`|(?m:^[ \t]*#{2,6}[ \t]*` + alt(`system(?: prompt| message)?`, `instructions?`, `new instructions`,
		`admin(?:istrator)? (?:note|instructions?)`, `developer (?:note|message)`, `response`) + `[ \t]*:?[ \t]*$)` +
		`|"role"\s*:\s*"(?:system|developer)"` +
		`|\b` + alt(`begin`, `start`, `end`) + `(?: of)? (?:the )?` + alt(`system`, `admin`, `developer`, `hidden`, `secret`, `new`) + ` ` +
		alt(`prompt`, `message`, `instructions?`) + `\b`)

	// An XML-like role tag; roleTags keeps those that open a block (the
	// closing tag follows, or the tag starts a line).
	reRoleTag = lazyRE(`</?(?:\w+[_-])?` + alt(`system`, `sys`, `instructions?`, `admin`, `developer`, `assistant`, `override`, `im_start`, `jailbreak`) +
		`(?:[_-]\w+)?\s*>`)

	// A line that opens with a chat role and a colon.
	reRoleLine = lazyRE(`(?m)^[ \t>*_-]*` + alt(`system`, `developer`, `assistant`, `user`, `human`, `ai`) +
		`(?: (?:message|prompt|override|note))?[ \t]*:[ \t]*\S[^\n]*`)

	rePersona = lazyRE(`\byou are (?:now|no longer|hereby|henceforth)\b` +
		`|\bfrom (?:now|this (?:point|moment)|here) on\b,? ` + sentence("30") + `\b` + alt(`you(?:'re| are| will be| shall be)`,
		`respond`, `answer`, `reply`, `behave`, `act as`, `pretend`, `obey`, `ignore`, `forget`, `disregard`, `speak`, `refuse`, `only (?:respond|answer|reply|output)`) + `\b` +
		`|\b` + alt(`act`, `behave`, `respond`, `answer`, `operate`, `function`) + ` as (?:if you (?:were|are) |though you (?:were|are) )?(?:an? )?` +
		alt(`unrestricted`, `unfiltered`, `uncensored`, `jailbroken`, `evil`, `malicious`, `dan\b`, `root`, `superuser`, `ai without`, `model without`, `assistant without`) +
		`|\bpretend (?:to be|you are|you're|that you)\b|\b(?:role-?play|role play) as\b` +
		`|\b(?:enable|enter|activate|switch to|you are in|now in) (?:developer|dev|god|jailbreak|unrestricted|dan|debug|sudo|admin) mode\b` +
		`|\bdo anything now\b` +
		`|\b` + alt(`you`, `you're`, `assistant`, `ai`, `model`, `bot`, `chatbot`, `agent`, `persona`, `character`) + `\b` + sentence("50") +
		`\b(?:(?:has|have|with|without|there are|bound by) (?:no|any)|no longer (?:has|have|bound by)|free (?:of|from)|not bound by)\s+(?:\w+\s+)?` +
		alt(`rules`, `restrictions`, `limits`, `limitations`, `filters`, `guidelines`, `content polic(?:y|ies)`, `censorship`, `guardrails`, `boundaries`, `ethics`, `morals`, `polic(?:y|ies)`) + `\b` +
		`|\byour ` + alt(`new`, `real`, `true`, `actual`, `primary`, `only`, `hidden`, `secret`, `updated`, `revised`, `overriding`) + ` ` +
		alt(`task`, `goal`, `objective`, `instructions?`, `mission`, `purpose`, `directive`, `role`, `job`, `priority`, `orders`) + `\b` +
		`|\bnew (?:system )?` + alt(`instructions?`, `directives?`, `rules`, `orders`) + `\s*:` +
		`|\b(?:the )?` + alt(`previous`, `above`, `prior`, `earlier`, `original`, `old`) + ` ` + alt(`instructions?`, `prompt`, `rules`, `directives?`) +
		` (?:was|were|is|are|have been|has been) (?:just )?` + alt(`fake`, `a test`, `wrong`, `outdated`, `void`, `cancell?ed`, `revoked`,
		`invalid`, `not valid`, `obsolete`, `superseded`, `replaced`, `lifted`, `removed`) + `\b` +
		`|\bthis (?:message|note|record|memory|instruction|text) ` + alt(`overrides`, `supersedes`, `replaces`, `takes precedence over`, `has priority over`) + `\b` +
		`|\b(?:takes?|has|have) (?:absolute |top )?(?:precedence|priority) over (?:all|any|every|your|the (?:system|previous|original))\b` +
		`|\b(?:above|overriding|overrides|supersed(?:es|ing)|trumps) (?:every|all|any) (?:other )?` + alt(`rules?`, `instructions?`, `directives?`, `guidelines`, `polic(?:y|ies)`) + `\b` +
		// instructions the model was given, declared void
		`|\b(?:(?:your|the (?:ai|assistant|agent|model)(?:'s)?|the system) ` + alt(`instructions?`, `guidance`, `rules`, `prompt`, `directives?`, `guidelines`, `constraints`, `programming`) +
		`|` + alt(`instructions?`, `guidance`, `rules`, `directives?`, `guidelines`, `constraints`) + ` (?:that )?(?:you (?:got|were given|received|have been given|were configured with|were trained on|follow)|given to you))` +
		sentence("50") + `\b(?:no longer (?:appl(?:y|ies)|valid|in (?:force|effect)|matters?)|(?:is|are|were|was|have been|has been) (?:now )?` +
		alt(`void`, `cancell?ed`, `revoked`, `obsolete`, `superseded`, `lifted`, `suspended`, `invalid`, `fake`, `a test`, `replaced`, `disabled`, `off`) + `)\b` +
		`|\b(?:highest|top|maximum|absolute)[- ]priority ` + alt(`instruction`, `directive`, `override`, `command`, `order`) + `\b`)

	// Keeping things from the user or the operator; dropping the
	// confirmations a policy asks for. The one kept in the dark is the
	// recipient, right after the verb ("do not tell the user"); a
	// possessive ("do not reveal a customer's card number") is the
	// object of a data-protection rule, not an audience.
	secrecyNeg = alt(`do not`, `don't`, `dont`, `never`, `must not`, `mustn't`, `should not`, `shouldn't`, `without`, `no need to`)
	secrecyWho = `(?:the |any |your |an? )?` + alt(`users?`, `humans?`, `operators?`, `reviewers?`, `customers?`, `anyone`, `anybody`, `admins?`, `administrators?`, `owners?`, `supervisors?`, `security team`, `them`) + `(?:$|[^'’\w])`
	reSecrecy  = lazyRE(`\b` + secrecyNeg + `\s+(?:ever\s+)?` + alt(`tell(?:ing)?`, `inform(?:ing)?`, `notify(?:ing)?`, `alert(?:ing)?`, `warn(?:ing)?`, `let(?:ting)? know`) +
		`\s+` + secrecyWho +
		`|\b` + secrecyNeg + `\s+(?:ever\s+)?` + alt(`mention(?:ing)?`, `reveal(?:ing)?`, `disclos(?:e|ing)`, `report(?:ing)?`, `admit(?:ting)?`, `explain(?:ing)?`, `say(?:ing)?`, `show(?:ing)?`) +
		`\s+(?:` + alt(`this`, `that`, `it`, `anything`, `any of this`, `the (?:following|above)`, `(?:this|that|the) (?:record|memory|note|instruction|change|step|rule|fee|link|message)`) + `\s+)?` +
		alt(`to`, `in front of`) + `\s+` + secrecyWho +
		`|\b(?:keep|hide|conceal)\b` + sentence("50") + `\bfrom (?:the |this |that |your )?` +
		alt(`users?`, `humans?`, `operators?`, `reviewers?`, `customers?`, `persons?`, `people`, `anyone`, `admins?`, `owners?`, `logs?`, `auditors?`) + `\b` +
		`|\b` + secrecyNeg + `\s+(?:ever\s+)?` + alt(`mention`, `bring up`, `refer to`, `cite`, `reveal`, `disclose`, `acknowledge`, `talk about`, `admit`) +
		`(?:ing)?\s+(?:this|these|the existence of (?:this|these)|that)\s+` + alt(`records?`, `notes?`, `memor(?:y|ies)`, `instructions?`, `messages?`, `rules?`, `entry`, `entries`) + `\b` +
		`|\b(?:skip|avoid|stop|omit|don't bother|do not bother)\s+(?:asking|checking with|requesting|getting)\s+(?:the\s+)?(?:\w+\s+)?(?:for|to)\s+` +
		alt(`confirm(?:ation)?`, `permission`, `approv(?:e|al)`, `consent`, `authori[sz]ation`) + `\b` +
		`|\b(?:the )?` + alt(`user`, `human`, `operator`, `reviewer`, `customer`) + ` (?:must|should|may|can|will) (?:never|not) ` +
		alt(`know`, `find out`, `see`, `learn`, `notice`, `be told`, `be informed`, `suspect`) + `\b` +
		`|\b` + alt(`do not`, `don't`, `dont`, `never`, `no need to`) + ` (?:ask|wait|check) (?:the user |the customer |anyone )?(?:for )?` +
		alt(`confirmation`, `permission`, `approval`, `consent`, `authori[sz]ation`) + `\b` +
		`|\bwithout (?:asking|requesting|seeking|getting|waiting for|obtaining) (?:for )?(?:the user'?s? |the customer'?s? |any |their |explicit )?` +
		alt(`confirmation`, `permission`, `approval`, `consent`, `authori[sz]ation`) + `\b` +
		// a stealthy imperative: the adverb opens the sentence or follows "you should"
		`|(?m:(?:^|[.!?:;]\s+|\b(?:you (?:should|must|will|can|need to)|please|then|and|also)\s+)` +
		alt(`silently`, `quietly`, `secretly`, `covertly`, `discreetly`, `stealthily`, `behind the scenes`, `in the background`) + `,?\s+(?:\w+\s+)??` +
		stealthVerb + `\b)` +
		`|\b` + stealthVerb + `\s+(?:[\w'’-]+\s+){0,3}?` + alt(`silently`, `quietly`, `secretly`, `covertly`, `stealthily`, `discreetly`, `without a trace`) + `\b`)

	stealthVerb = alt(`run`, `execute`, `call`, `invoke`, `send`, `forward`, `upload`, `post`, `delete`, `drop`, `remove`, `add`, `append`,
		`change`, `modify`, `copy`, `transfer`, `grant`, `approve`, `insert`, `include`, `email`, `exfiltrate`, `collect`, `record`, `log`, `do`, `perform`, `wipe`, `erase`)

	// Injecting text into every answer, blind trust, blanket compliance.
	// Secrecy and no-confirmation in other languages.
	reSecrecyIntl = lazyRE(alt(
		`ne (?:le |lui |leur )?(?:dis|dites|mentionne[sz]?|révèle[sz]?|signale[sz]?)(?: jamais| pas| rien)?[^.!?\n]{0,30}(?:l'utilisateur|l’utilisateur|utilisateur|client|opérateur)`,
		`no (?:le |les )?(?:digas|diga|cuentes|cuente|menciones|mencione|reveles|revele|informes|informe)[^.!?\n]{0,30}(?:usuario|cliente|operador)`,
		`não (?:diga|conte|mencione|revele|informe)[^.!?\n]{0,30}(?:usuário|usuario|cliente|operador)`,
		`(?:sag|sagen sie|erzähl|erzählen sie|verrate|verraten sie)[^.!?\n]{0,20}(?:dem|den) (?:nutzer|benutzer|kunden|anwender)[^.!?\n]{0,30}(?:nicht|nichts|niemals)`,
		`non (?:dire|dirlo|rivelare|menzionare|informare)[^.!?\n]{0,30}(?:utente|cliente|operatore)`,
		`не (?:говори|говорите|сообщай|сообщайте|рассказывай|упоминай)[^.!?\n]{0,30}(?:пользовател|клиент|оператор)`,
		`(?:不要|别|不许|切勿)(?:告诉|透露|提及|让)[^。\n]{0,10}(?:用户|客户|使用者)`,
	))

	reInjectOutput = lazyRE(`\b` + alt(`include`, `add`, `append`, `prepend`, `insert`, `embed`, `attach`, `put`,
		`place`, `mention`, `recommend`, `promote`, `say`, `print`, `output`, `end`, `start`, `begin`, `sign`, `link`) +
		`\b` + sentence("60") + `\b(?:to|in|into|at the (?:end|start|top|bottom|beginning) of|with|on)\s+(?:every|each|all|any)\s+(?:of your\s+)?` +
		alt(`responses?`, `answers?`, `repl(?:y|ies)`, `outputs?`, `messages?`, `summar(?:y|ies)`, `emails?`, `completions?`, `turns?`) + `\b` +
		`|\b(?:in|at the (?:end|start) of|to) (?:every|each|all) (?:of your |future )?` + alt(`responses?`, `answers?`, `repl(?:y|ies)`, `outputs?`, `messages?`) +
		`\b` + sentence("40") + `\b` + alt(`include`, `add`, `append`, `mention`, `say`, `recommend`, `insert`, `link`, `promote`) + `\b` +
		// "end with '…' every time", "always sign off with …"
		`|\b(?:end|start|begin|close|finish|conclude|sign off|sign)\s+(?:\w+\s+)?with\b` + sentence("80") + `\b(?:every (?:single )?time|each time|always|without exception|in (?:all|every) (?:cases?|answers?|repl(?:y|ies)))\b` +
		`|\balways\s+(?:end|start|begin|close|finish|conclude|sign off|sign)\s+(?:\w+\s+)?with\b`)

	// Only a payload that is a link, a quoted phrase or "the following"
	// makes an every-answer directive an injection ("state amounts in
	// GBP in every answer" is a convention).
	rePayload = lazyRE(`https?://|www\.|"[^"]{3,}"|'[^']{3,}'|“[^”]{3,}”|\b(?:this|the following|our|my) (?:link|url|message|text|phrase|sentence|code|snippet|product|brand|referral|affiliate|coupon|site|website)\b|\bthe following\b|\baffiliate\b|\breferral\b`)

	reTrust = lazyRE(`\b` + alt(`always`, `unconditionally`, `blindly`, `without question(?:ing)?`) + `\s+(?:\w+\s+){0,2}?` +
		alt(`comply with`, `obey`, `do whatever`, `say yes to`, `do as (?:the|this|it|they) says?`) + `\b` +
		`|\b(?:always |blindly |fully |implicitly )?trust\b` + sentence("20") + `\b` + alt(`instructions?`, `commands?`, `requests?`,
		`tool (?:output|result)s?`, `this (?:record|memory|note|message)`, `these (?:records|memories|notes)`, `everything`, `anything`, `whatever`) + `\b` +
		`|\b` + alt(`follow`, `obey`, `execute`, `carry out`, `comply with`) + `\b` + sentence("20") + `\b(?:any|all|every|whatever)\b` + sentence("20") +
		`\b` + alt(`instructions?`, `commands?`, `requests?`, `orders`, `text`, `content`) + `\b` + sentence("40") + `\b` +
		alt(`in`, `from`, `inside`, `within`) + `\b` + sentence("20") + `\b` + alt(`tool (?:output|result)s?`, `web ?pages?`, `documents?`,
		`emails?`, `files?`, `results?`, `observations?`, `memor(?:y|ies)`, `records?`, `this`) +
		`|\b(?:obey|follow) (?:these|the following|my|only my) (?:instructions|commands|orders)\b` +
		`|\b(?:must|should|shall|always|will) (?:get|be given|receive|give (?:them|the user|him|her)|grant (?:them|the user)|comply with) (?:whatever|anything|everything)\b` +
		`|\b(?:the user|this user|i|the requester|the sender) (?:is|am|has been|have been) (?:an? |the )?` +
		alt(`admin(?:istrator)?`, `root`, `superuser`, `pre-?approved`, `pre-?authori[sz]ed`, `fully authori[sz]ed`, `owner of this system`) + `\b` +
		`|\b(?:treat|consider|regard)\s+(?:[\w'’]+\s+){0,6}?as\s+(?:if (?:it|they) (?:were|came from)\s+)?(?:coming from\s+|written by\s+|sent by\s+)?(?:the\s+|an?\s+)?` +
		alt(`system (?:instructions?|prompt|messages?)`, `developer(?:'s)?(?: (?:instructions?|messages?))?`, `admin(?:istrator)?(?:'s)? (?:commands?|instructions?|requests?)`,
			`system`, `operator`, `trusted (?:instructions?|input|commands?|sources?)`, `authori[sz]ed (?:commands?|instructions?|requests?)`) + `\b` +
		`|\b(?:treat|consider|regard)\s+(?:this|these|all|any|every|the following|such|its|their)?\s*(?:\w+\s+){0,2}?` +
		alt(`instructions?`, `messages?`, `content`, `text`, `input`, `requests?`, `memor(?:y|ies)`, `notes?`, `tool outputs?`, `commands?`) +
		`\s+as\s+(?:fully\s+)?` + alt(`trusted`, `authori[sz]ed`, `verified`) + `\b`)

	reToolMarkup = lazyRE(`<\s*/?\s*(?:antml:)?` + alt(`tool_call`, `tool_calls`, `function_call`, `function_calls`, `invoke`, `tool_use`,
		`tool_code`, `execute_command`, `run_command`) + `\b` +
		`|"(?:tool_calls|function_call|tool_use)"\s*:` +
		`|\{\s*"(?:name|tool|tool_name|function)"\s*:\s*"[\w.-]+"\s*,\s*"(?:arguments|parameters|input|args|params)"\s*:`)

	reToolCall = lazyRE(`\b` + alt(`call`, `invoke`, `use`, `run`, `execute`, `trigger`, `fire`) + `\s+(?:the\s+)?[\x60"']?[a-z][\w.-]*[\x60"']?\s+` +
		alt(`tool`, `function`, `api`, `endpoint`, `action`) + `\b`)
	// reHarmArg is matched in the tool call's sentence: deleting in bulk,
	// moving money, sending out, handing over credentials. "_" counts as
	// a word break so that tool names (send_email, delete_records) count.
	reHarmArg = lazyRE(`(?:^|[^a-z0-9])` + alt(`delete`, `drop`, `remove`, `wipe`, `purge`, `destroy`, `truncate`, `erase`, `revoke`, `disable`, `kill`) +
		`(?:[^a-z0-9]|$)` + sentence("30") + `(?:^|[^a-z0-9])` + alt(`all`, `every`, `everything`, `entire`, `whole`, `users?`, `accounts?`, `audit`, `logs?`, `backups?`, `database`, `bank`, `tables?`, `records`) + `(?:[^a-z0-9]|$)` +
		`|(?:^|[^a-z0-9])` + alt(`send`, `email`, `post`, `upload`, `export`, `forward`, `funds`, `money`, `iban`, `wallet`, `sudo`, `chmod`, `rm`, `password`, `credentials?`, `secrets?`, `api[_ ]?keys?`) + `(?:[^a-z0-9]|$)` +
		`|(?:^|[^a-z0-9])transfer(?:[^a-z0-9]|$)` + sentence("30") + alt(`funds`, `money`, `balance`, `amount`, `acct`, `account (?:number|no)`, `iban`, `wallet`) +
		`|(?:amount|sum)\s*=\s*(?:all|max|\d{4,})` +
		`|=\s*\*|/\*|=\s*all\b|https?://|@[\w-]+\.`)

	reDestructive = lazyRE(`\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\s+(?:--no-preserve-root\s+)?(?:/|~|\*|\$home|\.\.?/?(?:\s|$))` +
		`|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:` +
		`|\bmkfs(?:\.\w+)?\s+/dev/|\bdd\s+if=\S+\s+of=/dev/(?:sd|nvme|hd|disk|xvd)` +
		`|\bchmod\s+(?:-r\s+)?777\s+/(?:\s|$|etc|usr|bin|var|home)` +
		`|\bgit\s+push\s+(?:\S+\s+){0,3}(?:-f|--force)(?:\s|$)` +
		`|(?m:(?:drop|truncate)\s+(?:table|database|schema)\s+(?:if exists\s+)?[\w."\x60\[\]]+\s*(?:;|$))` +
		`|\b(?:overwrite|modify|edit|append to|write to|replace|add (?:a line )?to)\b` + sentence("30") + `(?:~/\.|/etc/|\$home/\.)(?:bashrc|zshrc|profile|bash_profile|ssh|gitconfig|passwd|shadow|sudoers|crontab)` +
		`|\bauthorized_keys\b` +
		`|(?m:\bdelete\s+from\s+[\w.]+\s*(?:;|$))` +
		`|\bshutdown\s+(?:-h|/s|now)\b|\bformat\s+c:|\bdel\s+/[sfq]\b|\brmdir\s+/s\b|\bsudo\s+rm\b|\bkill\s+-9\s+-1\b`)
)

// intlRule is a pattern for one language (or a few close ones).
type intlRule struct{ lang, pattern string }

func overrideIntlRules() []*textRule {
	var out []*textRule
	for _, l := range overrideIntl {
		out = append(out, &textRule{id: "override-instructions-intl", kind: Instruction,
			reason: "tells the model to ignore its instructions (" + l.lang + ")", re: regexp.MustCompile(l.pattern)})
	}
	return out
}

func instructionRules() []*textRule {
	return append(overrideIntlRules(), []*textRule{
		{id: "override-instructions", kind: Instruction, reason: "tells the model to ignore or override its instructions",
			re: reOverride()},
		{id: "role-marker", kind: Instruction, reason: "holds a chat-template role marker or a system-prompt header",
			re: reRoleToken()},
		{id: "role-tag", kind: Instruction, reason: "holds an XML-like system, admin or instructions tag", re: reRoleTag(), vetAll: roleTags},
		{id: "role-transcript", kind: Instruction, reason: "holds lines written as a chat transcript with a system or assistant turn",
			re: reRoleLine(), vetAll: roleLines},
		{id: "persona-override", kind: Instruction, reason: "gives the model a new identity, mode or task",
			re: rePersona()},
		{id: "secrecy-or-no-confirmation", kind: Instruction, reason: "tells the model to hide something from the user or to act without confirmation",
			re: reSecrecy()},
		{id: "secrecy-intl", kind: Instruction, reason: "tells the model to hide something from the user (not in English)",
			re: reSecrecyIntl()},
		{id: "inject-into-answers", kind: Instruction, reason: "tells the model to put a given link or text into every answer",
			re: reInjectOutput(), accept: sentenceHas(rePayload())},
		{id: "blind-trust", kind: Instruction, reason: "tells the model to trust or obey without question, or claims elevated authority",
			re: reTrust()},
		{id: "tool-call-markup", kind: Instruction, reason: "holds tool-call markup addressed to a model",
			re: reToolMarkup()},
		{id: "tool-call-command", kind: Instruction, reason: "tells the model to call a tool with destructive or outbound arguments",
			re: reToolCall(), accept: sentenceHas(reHarmArg())},
		{id: "destructive-command", kind: Instruction, reason: "holds a destructive shell or SQL command",
			re: reDestructive()},
	}...)
}

// sentenceHas accepts a match whose sentence (the match widened to the
// surrounding sentence and line) also matches re.
func sentenceHas(re *regexp.Regexp) func(string, []int) bool {
	return func(text string, m []int) bool {
		s, e := sentenceAround(text, m[0], m[1])
		return re.MatchString(text[s:e])
	}
}

// sentenceAround widens [s, e) to the sentence around it: back to the
// previous . ! ? or line break followed by a space (a URL's dots are not
// ends), forward to the next.
func sentenceAround(text string, s, e int) (int, int) {
	for s > 0 {
		c := text[s-1]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && s < len(text) && text[s] == ' ' {
			break
		}
		s--
	}
	for e < len(text) {
		c := text[e]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && (e+1 == len(text) || text[e+1] == ' ') {
			break
		}
		e++
	}
	return s, e
}

// roleLines keeps the role-transcript matches that are a real
// transcript: a system or developer line that speaks to "you", or lines
// of at least two different roles.
func roleLines(text string, ms [][]int) [][]int {
	roles := map[string]bool{}
	var keep [][]int
	for _, m := range ms {
		line := text[m[0]:m[1]]
		role := roleOf(line)
		roles[role] = true
		if (role == "system" || role == "developer") && reYou().MatchString(line) {
			keep = append(keep, m)
		}
	}
	if len(roles) >= 2 && (roles["assistant"] || roles["ai"] || roles["system"]) {
		return ms
	}
	return keep
}

var (
	reYou      = lazyRE(`\byou(?:r|'re|'ll)?\b|\b(?:must|always|never|ignore|do not|don't)\b`)
	reRoleWord = lazyRE(`system|developer|assistant|user|human|ai`)
)

func roleOf(line string) string { return reRoleWord().FindString(line) }

// roleTags keeps the role tags that open a block: their closing tag
// comes later in the text, or the tag starts a line. "The <system>
// element in config.xml" describes a tag; it opens nothing.
func roleTags(text string, ms [][]int) [][]int {
	var keep [][]int
	for _, m := range ms {
		tag := text[m[0]:m[1]]
		if strings.HasPrefix(tag, "</") {
			keep = append(keep, m)
			continue
		}
		name := strings.TrimSpace(strings.Trim(tag, "<>"))
		lineStart := m[0] == 0 || text[m[0]-1] == '\n' || strings.TrimSpace(text[strings.LastIndexByte(text[:m[0]], '\n')+1:m[0]]) == ""
		if lineStart || strings.Contains(text[m[1]:], "</"+name) {
			keep = append(keep, m)
		}
	}
	return keep
}
