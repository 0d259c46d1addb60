;;; lsp-mode.el --- Emacs's lsp-mode runs Reasonix's quick fix, in batch  -*- lexical-binding: t -*-

;; emacs --batch -l lsp-mode.el
;;
;; lsp/clients_test.go runs it (lsp-mode.txtar) with the environment:
;;   REASONIX_LSP              the server command (`reasonix lsp`)
;;   REASONIX_TEST_ROOT        the workspace folder
;;   REASONIX_TEST_FILE        the file to open: the failing test
;;   REASONIX_TEST_DIAGNOSTIC  the diagnostic to report for it (JSON), as
;;                             gopls would: the server computes none
;;
;; lsp-mode is plain LSP here, as users run it: no Reasonix extensions.
;; Started from `go-mode-hook', it reports open any Go file it loads,
;; and it applies an edit to a file no buffer visits by loading the file
;; into a buffer of its own, left unsaved.  The fix goes to calc.go,
;; which is not open: the agent's `go test' in the turn must see it and
;; pass, and lsp-mode must be left no buffer of calc.go.  The dialogs
;; (the edit, the command) are answered "Allow once"; the turn's end
;; shows as its answer in window/showMessage.  Exits 0 only if every
;; check held; otherwise 1, with the reason and lsp-mode's JSON-RPC log
;; on stderr (REASONIX_TEST_TRANSCRIPT=1 prints it always).

;;; Code:

(defvar reasonix-test-client 'lsp-mode)
(load (expand-file-name "reasonix-test.el") nil t)

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (calc (expand-file-name "calc.go" root))
         (diagnostic (reasonix-test-diagnostic))
         (default-directory root)
         (ws (reasonix-test-connect root file))
         (proc (lsp--workspace-cmd-proc ws)))
    (unwind-protect
        (progn
          (when (find-buffer-visiting calc)
            (error "calc.go is open before the turn"))
          ;; lsp-mode sends only its own server's diagnostics with a
          ;; code action request: this one is the failing test's, as
          ;; `lsp-execute-code-action' would send it from gopls.
          (let* ((actions (lsp-request "textDocument/codeAction"
                                       (list :textDocument (lsp--text-document-identifier)
                                             :range (plist-get diagnostic :range)
                                             :context (list :diagnostics (vector diagnostic)))))
                 (fix (seq-find (lambda (a) (string-prefix-p "Ask Reasonix to fix"
                                                             (lsp:code-action-title a)))
                                actions)))
            (unless fix
              (error "No \"Ask Reasonix to fix\" among %S" (seq-map #'lsp:code-action-title actions)))
            (unless (equal (lsp:code-action-kind? fix) "quickfix")
              (error "The fix is of kind %S" (lsp:code-action-kind? fix)))
            (reasonix-test-say "code action: %s" (lsp:code-action-title fix))
            ;; As M-x lsp-execute-code-action runs the chosen action: its
            ;; command, reasonix.start, answers at once.
            (lsp-execute-code-action fix))

          (reasonix-test-turn-ended 1)

          ;; The fix is on disk, where the agent's command saw it; no
          ;; buffer holds calc.go, unsaved or not.
          (let ((buf (find-buffer-visiting calc)))
            (when buf
              (error "lsp-mode holds a buffer of calc.go (modified: %s)" (buffer-modified-p buf))))
          (when (buffer-modified-p)
            (error "The test file's buffer was modified"))

          ;; Two dialogs: the edit and the command.
          (reasonix-test-permission-dialogs 2)

          (reasonix-test-shutdown ws)
          (reasonix-test-say "ok: %d dialogs, server exit 0" (length reasonix-test-dialogs))
          (when (getenv "REASONIX_TEST_TRANSCRIPT")
            (reasonix-test-transcript)))
      (when (process-live-p proc)
        (delete-process proc)))))

(reasonix-test-run #'reasonix-test-main)

;;; lsp-mode.el ends here
