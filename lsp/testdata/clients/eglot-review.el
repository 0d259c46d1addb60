;;; eglot-review.el --- eglot reviews Reasonix's proposed changes, in batch  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-review.el
;;
;; lsp/clients_review_test.go runs it (review.txtar) with the environment:
;;   REASONIX_LSP        the server command (`reasonix lsp`)
;;   REASONIX_TEST_ROOT  the workspace folder
;;   REASONIX_TEST_FILE  calc.go, which the agent changes in three hunks
;;
;; Plain LSP, as users run eglot, with review = "propose" in
;; initializationOptions: the agent's changes are diagnostics; the fix of
;; Add is accepted and the comment rejected through their code actions
;; (the accepted hunk arrives as a workspace edit eglot applies); the user
;; then edits the third hunk's line, and accepting that stale hunk is
;; refused.  Exits 0 only if every check held.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

(defvar reasonix-test-diagnostics nil "The last diagnostics published for the file.")

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key _uri diagnostics &allow-other-keys)
  (setq reasonix-test-diagnostics (append diagnostics nil)))

(setq eglot-confirm-server-initiated-edits nil)
;; Eglot follows initialize with workspace/didChangeConfiguration, whose
;; settings replace the initializationOptions: say it there too.
(setq-default eglot-workspace-configuration '((:review . "propose")))
(setq reasonix-test-answer (lambda (_message _actions) "Allow for session"))

(defun reasonix-test-line-diagnostics (line)
  (vconcat (cl-remove-if-not (lambda (d) (= line (plist-get (plist-get (plist-get d :range) :start) :line)))
                             reasonix-test-diagnostics)))

(defun reasonix-test-actions (server line)
  (append (jsonrpc-request server :textDocument/codeAction
                           (list :textDocument (eglot--TextDocumentIdentifier)
                                 :range (list :start (list :line line :character 1)
                                              :end (list :line line :character 1))
                                 :context (list :diagnostics (reasonix-test-line-diagnostics line))))
          nil))

(defun reasonix-test-action (actions title)
  (cl-find-if (lambda (a) (equal (plist-get a :title) title)) actions))

(defun reasonix-test-execute (server action)
  "Execute ACTION's command as eglot does for a chosen code action."
  (let ((command (plist-get action :command)))
    (eglot-execute-command server (intern (plist-get command :command)) (plist-get command :arguments))))

(defun reasonix-test-line (n)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- n))
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (default-directory root)
         (eglot-server-programs `((go-mode . (,(reasonix-test-env "REASONIX_LSP")
                                              :initializationOptions (:review "propose"))))))
    (let* ((server (reasonix-test-connect root file))
           (proc (jsonrpc--process server))
           (original (buffer-string))
           (uri (plist-get (eglot--TextDocumentIdentifier) :uri)))
      (unwind-protect
          (progn
            (let ((turn (eglot-execute-command
                         server 'reasonix.ask
                         (vector (list :prompt "Review these fixes to calc.go." :uri uri)))))
              (unless (equal (plist-get turn :stop) "done")
                (error "The turn: %S" turn)))
            (unless (string= (buffer-string) original)
              (error "The buffer changed before any hunk was accepted"))
            (reasonix-test-wait "three proposal diagnostics" (lambda () (= 3 (length reasonix-test-diagnostics))))
            (dolist (d reasonix-test-diagnostics)
              (unless (and (equal (plist-get d :source) "reasonix") (eql (plist-get d :severity) 3))
                (error "Diagnostic %S" d)))

            ;; Accept the fix of Add (line 5).
            (let* ((accept (or (reasonix-test-action (reasonix-test-actions server 4) "Accept this change")
                               (error "No \"Accept this change\" on line 5")))
                   (res (reasonix-test-execute server accept)))
              (unless (and (eql (plist-get res :hunks) 1) (eql (plist-get res :pending) 2))
                (error "Accept answered %S" res)))
            (unless (equal (reasonix-test-line 5) "\treturn a + b")
              (error "Line 5 after accepting: %S" (reasonix-test-line 5)))
            (reasonix-test-say "accepted the first hunk")

            ;; Reject the comment (an insertion before line 9).
            (reasonix-test-wait "two diagnostics" (lambda () (= 2 (length reasonix-test-diagnostics))))
            (let* ((reject (or (reasonix-test-action (reasonix-test-actions server 8) "Reject this change")
                               (error "No \"Reject this change\" on line 9")))
                   (res (reasonix-test-execute server reject)))
              (unless (and (eql (plist-get res :hunks) 1) (eql (plist-get res :pending) 1))
                (error "Reject answered %S" res)))
            (reasonix-test-say "rejected the second hunk")

            ;; The user edits the third hunk's line: it goes stale.
            (save-excursion
              (goto-char (point-min))
              (forward-line 14)
              (end-of-line)
              (insert " // checked by hand"))
            (eglot--signal-textDocument/didChange)
            (reasonix-test-wait "the stale diagnostic"
                                (lambda () (and (= 1 (length reasonix-test-diagnostics))
                                                (string-prefix-p "Stale proposed change"
                                                                 (plist-get (car reasonix-test-diagnostics) :message)))))
            (let ((actions (reasonix-test-actions server 14)))
              (when (reasonix-test-action actions "Accept this change")
                (error "A stale hunk offers \"Accept this change\""))
              (unless (reasonix-test-action actions "Reject this change")
                (error "A stale hunk offers no \"Reject this change\"")))
            (let* ((pending (jsonrpc-request server :reasonix/review (list :uri uri)))
                   (hunk (aref (plist-get (aref (plist-get pending :files) 0) :hunks) 0))
                   (refused (condition-case err
                                (progn (eglot-execute-command
                                        server 'reasonix.review.accept
                                        (vector (list :uri uri :hunk (plist-get hunk :id))))
                                       nil)
                              (jsonrpc-error (format "%S" err)))))
              (unless (eq (plist-get hunk :stale) t)
                (error "reasonix/review: %S" pending))
              (unless (and refused (string-match-p "edited since it was proposed" refused))
                (error "Accepting the stale hunk: %S" refused))
              (reasonix-test-say "the stale hunk was refused"))

            (save-buffer)
            (reasonix-test-shutdown server)
            (reasonix-test-say "ok")
            (when (getenv "REASONIX_TEST_TRANSCRIPT")
              (reasonix-test-transcript)))
        (when (process-live-p proc)
          (delete-process proc))))))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-review.el ends here
