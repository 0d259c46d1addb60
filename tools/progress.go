package tools

import "context"

type progressKey struct{}

// WithProgress returns ctx carrying report, which a running tool calls
// (through ReportProgress) to say how far along it is.
func WithProgress(ctx context.Context, report func(message string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress tells the user how far along the running tool is, in a
// few words ("step 3 of 10", "40%"). Without a listener it does nothing.
func ReportProgress(ctx context.Context, message string) {
	if report, ok := ctx.Value(progressKey{}).(func(string)); ok && report != nil {
		report(message)
	}
}
