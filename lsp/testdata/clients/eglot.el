;;; eglot.el --- Emacs's eglot runs Reasonix's quick fix, in batch  -*- lexical-binding: t -*-

;; emacs --batch -l eglot.el
;;
;; Not -Q: Debian's elpa-eglot (1.9) is on the load path through the site
;; start files; --batch still skips the user's init file.
;; lsp/clients_test.go runs it with the environment:
;;   REASONIX_LSP              the server command (`reasonix lsp`)
;;   REASONIX_TEST_ROOT        the workspace folder
;;   REASONIX_TEST_FILE        the file to open
;;   REASONIX_TEST_DIAGNOSTIC  the diagnostic to report for it (JSON), as
;;                             gopls would: the server computes none
;;   REASONIX_TEST_WANT        the file's text once fixed
;;
;; Eglot is plain LSP here, as users run it: no Reasonix extensions, no
;; reasonix/saveDocuments, no progress.  So the agent's shell command runs
;; while the fix is still only in the buffer, and the server says so to
;; the model.  Eglot asks permission dialogs with `completing-read', which
;; in batch would read stdin, so they are answered "Allow once"
;; (reasonix-test-eglot.el); the turn's end shows as its answer in
;; window/showMessage.  Exits 0 only if
;; every check held; otherwise 1, with the reason and eglot's JSON-RPC
;; transcript on stderr (REASONIX_TEST_TRANSCRIPT=1 prints it always).

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

;; Apply the server's edits without asking, as a user who trusts it
;; would have configured.
(setq eglot-confirm-server-initiated-edits nil)

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (want (reasonix-test-env "REASONIX_TEST_WANT"))
         (diagnostic (reasonix-test-diagnostic))
         (default-directory root)
         (eglot-server-programs `((go-mode . (,(reasonix-test-env "REASONIX_LSP"))))))
    (let* ((server (reasonix-test-connect root file))
           (proc (jsonrpc--process server)))
      (unwind-protect
          (progn
            (unless (eq major-mode 'go-mode)
              (error "%s opened in %s" file major-mode))
            (unless eglot--managed-mode
              (error "The buffer is not managed by eglot"))
            (let* ((actions (jsonrpc-request
                             server :textDocument/codeAction
                             (list :textDocument (eglot--TextDocumentIdentifier)
                                   :range (plist-get diagnostic :range)
                                   :context (list :diagnostics (vector diagnostic)))))
                   (fix (cl-find-if (lambda (a) (string-prefix-p "Ask Reasonix to fix"
                                                                 (plist-get a :title)))
                                    actions)))
              (unless fix
                (error "No \"Ask Reasonix to fix\" among %S" actions))
              (unless (equal (plist-get fix :kind) "quickfix")
                (error "The fix is of kind %S" (plist-get fix :kind)))
              (reasonix-test-say "code action: %s" (plist-get fix :title))
              ;; As eglot executes a chosen code action's command.
              ;; reasonix.start answers at once; the edit comes back as
              ;; workspace/applyEdit, which eglot applies to the buffer.
              (let* ((command (plist-get fix :command))
                     (started (eglot-execute-command server
                                                     (intern (plist-get command :command))
                                                     (plist-get command :arguments))))
                (unless (plist-get started :sessionId)
                  (error "reasonix.start answered %S" started))
                (reasonix-test-say "session %s" (plist-get started :sessionId))))

            ;; The turn ends with its answer; its edit was applied
            ;; before that.
            (reasonix-test-turn-ended 1)
            (let ((text (buffer-substring-no-properties (point-min) (point-max))))
              (unless (string= text want)
                (error "The buffer after the turn:\n%s" text)))
            (save-buffer)
            (when (buffer-modified-p)
              (error "The buffer is still modified after saving"))

            ;; Two dialogs: the edit and the command.
            (reasonix-test-permission-dialogs 2)

            (reasonix-test-shutdown server)
            (reasonix-test-say "ok: %d dialogs, server exit 0" (length reasonix-test-dialogs))
            (when (getenv "REASONIX_TEST_TRANSCRIPT")
              (reasonix-test-transcript)))
        (when (process-live-p proc)
          (delete-process proc))))))

(reasonix-test-run #'reasonix-test-main)

;;; eglot.el ends here
