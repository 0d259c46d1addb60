package permission

import (
	"fmt"
	"strings"
)

// ControlWhy words why a call that changes Reasonix's control files needs
// a person's approval: "changes reasonix.toml, one of Reasonix's control
// files".
func ControlWhy(files []string) string {
	switch len(files) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("changes %s, one of Reasonix's control files", files[0])
	}
	return fmt.Sprintf("changes %s and %s, Reasonix's control files", strings.Join(files[:len(files)-1], ", "), files[len(files)-1])
}

// alwaysAskWhy says why an always-ask call is asked.
func (r Request) alwaysAskWhy() string {
	if len(r.Control) == 0 {
		return "this call needs approval each time"
	}
	return ControlWhy(r.Control) + ", so it needs approval each time"
}
