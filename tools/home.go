package tools

import "os"

// userHome is a variable so tests can point it elsewhere.
var userHome = os.UserHomeDir
