// Package scripted is a scripted model server: a real HTTP server that
// speaks the OpenAI-compatible /chat/completions wire format, with real SSE
// framing, and answers each request with the next step of a script instead
// of a model. Tests point a provider at it, and the no-API-key demo runs it
// as a stand-in for DeepSeek.
//
// The server parses the raw JSON a client sends exactly as a real provider
// would, and enforces the rules real providers enforce (tool results must
// follow the call that asked for them; DeepSeek's thinking-mode rule that
// reasoning_content of a tool-call turn is passed back), so a client bug
// shows up here first rather than against a paid endpoint.
//
// # Script format
//
// A script is a sequence of steps separated by a line that is exactly
// "---". Blank lines and lines whose first non-blank character is '#' are
// ignored. Every other line is a directive; an unknown directive is a parse
// error naming its line. Directives may appear in any order within a step:
//
//	reasoning <text>        reasoning streamed as reasoning_content; several
//	                        lines are joined with "\n"
//	text <text>             answer streamed as content; several lines are
//	                        joined with "\n"; "text" alone is an empty line
//	call <name> [<json>]    a tool call with these arguments (default {});
//	                        the JSON is validated when the script is parsed;
//	                        several calls in one step are parallel calls
//	call-raw <name> <text>  a tool call whose arguments are sent verbatim,
//	                        even if they are not JSON (to test how a client
//	                        reports bad arguments back to the model)
//	finish <reason>         override finish_reason (default "tool_calls" when
//	                        the step has calls, else "stop")
//	delay <duration>        sleep this long (a Go duration) before each chunk
//	match <substring>       the step applies only to requests whose last user
//	                        message contains substring (several: all must)
//	expect user <s>         the last user message contains s
//	expect system <s>       the first system message contains s
//	expect tool <s>         a tool message after the last assistant message
//	                        contains s
//	expect tools <name>     the request's tools array offers function name
//	expect request <s>      the raw request body contains s
//	fault <status> [retry-after=<seconds>] [<message>]
//	                        answer with this HTTP status (400-599) and an
//	                        OpenAI-style error body; no text, reasoning,
//	                        call or finish in the same step
//	fault drop              stream part of the step, then close the TCP
//	                        connection abruptly
//	fault malformed         stream a few chunks, then a data line that is not
//	                        JSON, then stop
//	fault truncate          stream the content but end cleanly with no
//	                        finish_reason, no usage and no [DONE]
//
// Text after "reasoning", "text", "match", "expect <kind>" and "call-raw
// <name>" is taken verbatim after the single separating space.
//
// Each request to /chat/completions takes the first unconsumed step whose
// match lines (if any) hold, so two sessions can share one server by
// matching on their prompts. The step's expectations are then checked; if
// one fails the server answers 400 and the step stays unconsumed, so the
// failure is visible and deterministic. When no step applies the answer is
// also 400.
//
// A scenario file is a txtar archive; its script is the "model" section
// (see [ParseArchive]).
//
// # Usage and the prompt cache
//
// Token counts come from a deterministic approximate tokenizer (see
// tokenize). The prompt is tokenized from a canonical rendering of the
// request's semantic content, and cache hits emulate DeepSeek's prefix
// cache: the longest prefix shared with any earlier request, in whole
// 64-token blocks. Only requests that were answered with a step (not error
// answers) enter the cache.
//
// With Options.ContextWindow set, a request whose prompt counts more
// tokens than the window is refused with HTTP 400 and the body OpenAI
// sends (code "context_length_exceeded", "This model's maximum context
// length is N tokens. …", which is DeepSeek's wording too), before any
// step is consumed.
package scripted
