package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// What the server sends the client.
//
// Every method the server sends is a value below, of a type that fixes
// its params and, for a request, its result: showMessage.notify takes a
// *protocol.ShowMessageParams and nothing else, approve.call returns an
// approveResult. The values are gathered in toClient, which a test holds
// to docs/PROTOCOL.md and the bundled clients' tables, as it does
// customMethods and commands for what the client sends; nothing in the
// package sends through the connection any other way.

// A request is a method the server sends and waits on: P is its params,
// R its result (noResult for a request answered with null).
type request[P, R any] struct {
	method string
	// keepOnCancel leaves the client undisturbed when the caller stops
	// waiting; every other request is then cancelled at the client
	// ($/cancelRequest), so that it can take a question down.
	keepOnCancel bool
}

// A notification is a method the server sends without waiting: P is its
// params.
type notification[P any] struct {
	method string
}

// noResult is the result of a request answered with null.
type noResult struct{}

// clientMethod is an entry of toClient.
type clientMethod interface {
	name() string
	isNotification() bool
}

func (r request[P, R]) name() string         { return r.method }
func (request[P, R]) isNotification() bool   { return false }
func (n notification[P]) name() string       { return n.method }
func (notification[P]) isNotification() bool { return true }

// The standard methods the server sends.
var (
	applyEdit              = request[*protocol.ApplyWorkspaceEditParams, *protocol.ApplyWorkspaceEditResult]{method: protocol.MethodWorkspaceApplyEdit}
	showMessageRequest     = request[*protocol.ShowMessageRequestParams, *protocol.MessageActionItem]{method: protocol.MethodWindowShowMessageRequest}
	showDocument           = request[*protocol.ShowDocumentParams, *protocol.ShowDocumentResult]{method: protocol.MethodWindowShowDocument}
	workDoneProgressCreate = request[*protocol.WorkDoneProgressCreateParams, noResult]{method: protocol.MethodWindowWorkDoneProgressCreate}
	progressNotice         = notification[*protocol.ProgressParams]{method: protocol.MethodProgress}
	showMessage            = notification[*protocol.ShowMessageParams]{method: protocol.MethodWindowShowMessage}
	logMessage             = notification[*protocol.LogMessageParams]{method: protocol.MethodWindowLogMessage}
	publishDiagnostics     = notification[*protocol.PublishDiagnosticsParams]{method: protocol.MethodTextDocumentPublishDiagnostics}
	cancelRequest          = notification[*protocol.CancelParams]{method: protocol.MethodCancelRequest}
)

// The custom methods the server sends, documented in docs/PROTOCOL.md.
var (
	// saveDocuments asks a client that declared saveDocuments to save
	// the agent's edits before a shell command (save.go). A save the
	// turn stopped waiting for is not cancelled: the client finishes it.
	saveDocuments = request[saveDocumentsParams, saveDocumentsResult]{method: "reasonix/saveDocuments", keepOnCancel: true}
	// approve asks a client that declared approvals a permission or
	// plan question (permission.go).
	approve = request[approveParams, approveResult]{method: "reasonix/approve"}
	// askQuestion asks a client that declared questions the agent's own
	// question (question.go).
	askQuestion = request[questionParams, questionResult]{method: "reasonix/ask"}
	// agentEvent streams agent events to a client that declared events
	// (progress.go). Its params are encoded already, with encoding/json,
	// as the events define their JSON.
	agentEvent = notification[jsonrpc2.RawMessage]{method: "reasonix/event"}
)

// toClient is every method the server sends the client.
var toClient = []clientMethod{
	applyEdit, showMessageRequest, showDocument, workDoneProgressCreate,
	progressNotice, showMessage, logMessage, publishDiagnostics, cancelRequest,
	saveDocuments, approve, askQuestion, agentEvent,
}

// errNoClient is the error of a send on a server that is not running.
var errNoClient = errors.New("no client connection")

// call sends the request and waits for its result. When ctx ends first,
// the request is cancelled at the client unless it keepOnCancel.
func (r request[P, R]) call(ctx context.Context, s *Server, params P) (R, error) {
	var res R
	if s.conn == nil {
		return res, errNoClient
	}
	var into any = &res
	if _, none := into.(*noResult); none {
		into = nil // take whatever the client answers
	}
	id, err := s.conn.Call(ctx, r.method, params, into)
	if ctx.Err() != nil && !r.keepOnCancel {
		s.stopWaiting(ctx, id)
	}
	if err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}

// notify sends the notification.
func (n notification[P]) notify(ctx context.Context, s *Server, params P) error {
	if s.conn == nil {
		return errNoClient
	}
	return s.conn.Notify(ctx, n.method, params)
}

// stopWaiting tells the client that the server's call id, which ctx
// ended, is no longer waited for ($/cancelRequest), so that it can take
// its question down.
func (s *Server) stopWaiting(ctx context.Context, id jsonrpc2.ID) {
	p := protocol.CancelParams{ID: protocol.String(fmt.Sprint(id))}
	if n, ok := id.Number(); ok {
		p.ID = protocol.Integer(n)
	} else if str, ok := id.StringValue(); ok {
		p.ID = protocol.String(str)
	}
	if err := cancelRequest.notify(context.WithoutCancel(ctx), s, &p); err != nil {
		s.log.Info("$/cancelRequest not sent", "err", err)
	}
}
