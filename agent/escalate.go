package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/reasonix/reasonix/agent/config"
	"github.com/reasonix/reasonix/agent/provider"
)

// Escalation is the stronger model of [agent] escalation_model. When the
// session's model begins an answer with <<<NEEDS_PRO>>> or
// <<<NEEDS_PRO: reason>>>, the same request — the same messages, so the
// log and the main model's cached prefix are untouched — is sent to it
// instead, and the marker answer is dropped. Tasks, the planner and
// compaction summaries stay on the session's model.
type Escalation struct {
	Provider provider.Provider
	Model    string
	ModelRef string
	// Price is nil when unknown.
	Price *config.Price
}

// proMarker opens the marker; it closes with ">>>".
const proMarker = "<<<NEEDS_PRO"

// maxMarker bounds the marker with its reason: text that opens like one
// but runs longer is shown as it is.
const maxMarker = 512

// needsPro reports whether content begins with the marker, and returns
// its reason and the text after it.
func needsPro(content string) (reason, rest string, ok bool) {
	s := strings.TrimLeft(content, " \t\r\n")
	if !strings.HasPrefix(s, proMarker) {
		return "", content, false
	}
	end := strings.Index(s, ">>>")
	if end < 0 || end > maxMarker {
		return "", content, false
	}
	inner := s[len(proMarker):end]
	switch {
	case inner == "":
	case strings.HasPrefix(inner, ":"):
		reason = strings.TrimSpace(inner[1:])
	default:
		return "", content, false
	}
	return reason, strings.TrimLeft(s[end+3:], " \t\r\n"), true
}

// markerFilter holds back the start of a streamed answer until it is
// known whether it is the marker, so the marker never reaches the user.
// With drop set, a marked answer is not shown at all (it is asked again
// of the stronger model); without, the text after the marker is.
type markerFilter struct {
	t       *turn
	drop    bool
	buf     strings.Builder
	decided bool
	marked  bool
}

func (f *markerFilter) forward(c provider.Chunk) {
	if c.Kind == provider.ChunkRetry {
		// The answer starts over: whether it opens with the marker is
		// to be decided again, and what is held back is void.
		f.buf.Reset()
		f.decided, f.marked = false, false
	}
	if c.Kind != provider.ChunkText {
		f.t.forward(c)
		return
	}
	if f.decided {
		if !f.marked || !f.drop {
			f.t.forward(c)
		}
		return
	}
	f.buf.WriteString(c.Text)
	s := strings.TrimLeft(f.buf.String(), " \t\r\n")
	switch {
	case len(s) < len(proMarker) && strings.HasPrefix(proMarker, s):
		return // it may still be the marker
	case !strings.HasPrefix(s, proMarker):
		f.release(f.buf.String())
	default:
		if _, rest, ok := needsPro(s); ok {
			f.decided, f.marked = true, true
			if !f.drop && rest != "" {
				f.t.forward(provider.Chunk{Kind: provider.ChunkText, Text: rest})
			}
		} else if strings.Contains(s, ">>>") || len(s) > maxMarker {
			f.release(f.buf.String())
		}
	}
}

// release shows the held-back text: it is not the marker.
func (f *markerFilter) release(text string) {
	f.decided = true
	f.t.forward(provider.Chunk{Kind: provider.ChunkText, Text: text})
}

// flush shows what is still held back once the answer is complete.
func (f *markerFilter) flush() {
	if !f.decided && f.buf.Len() > 0 {
		f.release(f.buf.String())
	}
}

// escalate handles a response that begins with the marker: it is
// accounted on the session's model and replaced by the escalation
// model's answer to the same request, or, with none configured, by its
// text without the marker. It returns the response to keep and the model
// that wrote it.
func (t *turn) escalate(ctx context.Context, req provider.Request, resp provider.Response, prompt, bytes int, reason, rest string) (provider.Response, modelInfo, error) {
	a := t.a
	why := ""
	if reason != "" {
		why = ": " + reason
	}
	if a.Escalation == nil {
		none := "no escalation_model is configured"
		if a.isEscalationModel() {
			none = "it is the escalation_model itself"
		}
		t.event(Event{Kind: EventNotice, Text: "the model asked for a stronger model" + why + "; " + none})
		resp.Message.Content = rest
		return resp, a.model(), nil
	}
	if _, err := t.account(resp, bytes, a.model()); err != nil {
		return resp, modelInfo{}, err
	}
	e := a.Escalation
	t.event(Event{Kind: EventNotice, Text: fmt.Sprintf("escalated to %s%s", e.ModelRef, why)})
	req.Model = e.Model
	f := &markerFilter{t: t}
	m := modelInfo{name: e.Model, ref: e.ModelRef, price: e.Price}
	req.MaxTokens = a.MaxTokens // not what the first request's reservation left
	out, err := t.send(ctx, e.Provider, m, "escalation", req, prompt, bytes, f.forward)
	f.flush()
	if err != nil {
		return out, modelInfo{}, err
	}
	if _, rest, ok := needsPro(out.Message.Content); ok {
		out.Message.Content = rest
	}
	return out, m, nil
}

// isEscalationModel reports whether a runs on the model [agent]
// escalation_model names, which has nothing stronger to ask.
func (a *Agent) isEscalationModel() bool {
	if a.config == nil {
		return false
	}
	res, ok, err := a.config.EscalationModel()
	return err == nil && ok && res.String() == a.ModelRef
}
