" Vim with ALE runs Reasonix's quick fix, headless.
"
"   vim -N -u NONE -i NONE -n -es -S ale.vim
"
" lsp/clients_ale_test.go runs it (TestEditorALE) with the environment:
"   REASONIX_TEST_VIMRC   docs/editors.md's configuration for ALE, to source
"   REASONIX_TEST_FILE    the file to open: the failing test's, in a Go
"                         module
"   REASONIX_TEST_SHOWN   texts, separated by |, that must reach the user
"                         through ALE's display of window/showMessage;
"                         the last is the turn's answer, which ends the run
"
" ALE (Debian's vim-ale, 3.3.0) is set up as docs/editors.md shows (the
" Reasonix server as an LSP linter of Go files; `reasonix` on the PATH is
" the binary under test), with a linter that reports failing tests from
" `go test`, since Reasonix reports no diagnostics of its own. ALE
" declares no window capabilities and applyEdit false, and never answers
" window/showMessageRequest: the server must ask it nothing, and writes
" the agent's edits to disk itself. So the run fails as soon as such a
" request arrives.
"
" With the cursor on the test's failure, :ALECodeAction lists the code
" actions and asks which to run with input(); here the answer is the
" number of "Ask Reasonix to fix", as a user would type it. The run
" exits 0 only if every check held; otherwise 1 (:cquit), with the reason
" on stderr.

set nocompatible
filetype on

" How long to wait for any one thing, in milliseconds.
let s:timeout = 45000

function! s:Say(msg) abort
	call writefile(['ale: ' . a:msg], '/dev/stderr', 'a')
endfunction

function! s:Fail(msg) abort
	call s:Say('FAIL: ' . a:msg)
	cquit 1
endfunction

function! s:Env(name) abort
	let l:v = getenv(a:name)
	if l:v is v:null || l:v is# ''
		call s:Fail(a:name . ' is not set')
	endif
	return l:v
endfunction

" Wait runs Vim's loop (jobs, channels, timers) until Cond() holds.
function! s:Wait(what, Cond) abort
	let l:start = reltime()
	while !a:Cond()
		if reltimefloat(reltime(l:start)) * 1000 > s:timeout
			call s:Fail('timed out waiting for ' . a:what)
		endif
		sleep 20m
	endwhile
endfunction

let s:file = s:Env('REASONIX_TEST_FILE')
let s:shown_want = split(s:Env('REASONIX_TEST_SHOWN'), '|')

" What reached the user, what the server sent, and the code action menu.
let s:shown = []
let s:requests = []
let s:menu = ''

packadd ale

" The configuration docs/editors.md gives, as is; this run's `reasonix`
" is first on the PATH.
execute 'source ' . fnameescape(s:Env('REASONIX_TEST_VIMRC'))
" Only the two linters of this run.
let g:ale_linters_explicit = 1
let g:ale_linters = {'go': ['reasonix', 'gotest']}

" go test's failures as diagnostics: "--- FAIL: TestAdd" then, indented,
" "calc_test.go:7: message" lines, each on that line of that file.
function! ReasonixGoTest(buffer, lines) abort
	let l:out = []
	let l:test = ''
	let l:name = expand('#' . a:buffer . ':t')
	for l:line in a:lines
		let l:m = matchlist(l:line, '^\s*--- FAIL: \(\S\+\)')
		if !empty(l:m)
			let l:test = l:m[1]
			continue
		endif
		let l:m = matchlist(l:line, '^\s\+\([^: ]\+\.go\):\(\d\+\): \(.*\)$')
		if !empty(l:m) && l:m[1] is# l:name && l:test isnot# ''
			call add(l:out, {'lnum': str2nr(l:m[2]), 'col': 1, 'type': 'E', 'code': l:test,
			\   'text': l:test . ' fails: ' . l:m[3]})
		endif
	endfor
	return l:out
endfunction

call ale#linter#Define('go', {
\   'name': 'gotest',
\   'executable': 'go',
\   'cwd': function('ReasonixRoot'),
\   'command': 'go test ./...',
\   'output_stream': 'stdout',
\   'lint_file': 1,
\   'callback': 'ReasonixGoTest',
\})

" --- The test's own view of what ALE shows and asks. ---

" ALE's display of a server's message (after its severity filter).
runtime autoload/ale/util.vim
let s:ShowMessage = function('ale#util#ShowMessage')
function! ale#util#ShowMessage(string, ...) abort
	call add(s:shown, a:string)
	call s:Say('shown: ' . a:string)
endfunction

" The code action menu: answered with the Reasonix fix's number.
function! ale#util#Input(message, value, ...) abort
	let s:menu = a:message
	for l:line in split(a:message, "\n")
		let l:m = matchlist(l:line, '^\(\d\+\)) Ask Reasonix to fix')
		if !empty(l:m)
			call s:Say('menu: picked ' . l:line)
			return l:m[1]
		endif
	endfor
	call s:Fail('no "Ask Reasonix to fix" in the menu: ' . a:message)
endfunction

" Everything the server sends on ALE's connection.
function! s:Record(conn_id, message) abort
	if has_key(a:message, 'method') && has_key(a:message, 'id')
		call add(s:requests, a:message.method)
		call s:Say('server request: ' . a:message.method)
		if a:message.method is# 'window/showMessageRequest'
			call s:Fail('the server asked ALE, which never answers: ' . get(a:message.params, 'message', ''))
		endif
	endif
endfunction

let s:conn = ''
function! s:Started(linter, details) abort
	let s:conn = a:details.connection_id
	call ale#lsp#RegisterCallback(s:conn, function('s:Record'))
endfunction

" --- The run. ---

let v:errmsg = ''

execute 'edit ' . fnameescape(s:file)
if &filetype isnot# 'go'
	call s:Fail(s:file . ' opened with filetype ' . &filetype)
endif

let s:linter = filter(ale#linter#Get('go'), 'v:val.name is# ''reasonix''')[0]
call ale#lsp_linter#StartLSP(bufnr(''), s:linter, function('s:Started'))
call s:Wait('the server to start', {-> s:conn isnot# ''})

ALELint
call s:Wait('go test''s failure', {-> !empty(get(get(g:ale_buffer_info, bufnr(''), {}), 'loclist', []))})
let s:failure = g:ale_buffer_info[bufnr('')].loclist[0]
call s:Say('diagnostic: line ' . s:failure.lnum . ': ' . s:failure.text)

" On the failure's line, at its first column: ALE sends the diagnostic
" under the cursor with the code action request.
call cursor(s:failure.lnum, 1)
ALECodeAction
call s:Wait('the code action menu', {-> s:menu isnot# ''})

let s:answer = s:shown_want[-1]
call s:Wait('the turn''s answer', {-> !empty(filter(copy(s:shown), 'stridx(v:val, s:answer) >= 0'))})
for s:want in s:shown_want
	if empty(filter(copy(s:shown), 'stridx(v:val, s:want) >= 0'))
		call s:Fail('never shown: ' . s:want)
	endif
endfor
" An error in a callback (ALE's or this script's) ends the function that
" was waiting, not the run: it must fail the run all the same.
if v:errmsg isnot# ''
	call s:Fail('an error: ' . v:errmsg)
endif
call s:Say('ok: ' . len(s:shown) . ' messages shown, requests from the server: ' . string(s:requests))
qall!
