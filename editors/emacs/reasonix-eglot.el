;;; reasonix-eglot.el --- Reasonix as a language server for eglot  -*- lexical-binding: t -*-

;; Tested with Emacs 28.2 and eglot 1.9 by editors/emacs/run-snippet-test.sh;
;; docs/editors.md shows this file as is.

(require 'cl-lib)
(require 'seq)

(with-eval-after-load 'eglot
  ;; Eglot runs one server per buffer: in these modes Reasonix takes the
  ;; place of gopls.  :client declares reasonix/saveDocuments (below).
  (add-to-list 'eglot-server-programs
               '((go-mode go-ts-mode)
                 . ("reasonix" "lsp" :initializationOptions
                    (:client (:saveDocuments t)))))
  ;; The agent's edits arrive as workspace/applyEdit after it asked
  ;; permission; apply them without a second question.
  (setq eglot-confirm-server-initiated-edits nil)

  ;; reasonix/saveDocuments: save the buffers holding the agent's edits
  ;; before it runs a shell command, so `go test' sees them.
  (cl-defmethod eglot-handle-request
    (_server (_method (eql reasonix/saveDocuments)) &key uris)
    (let (saved failed)
      (seq-doseq (uri uris)
        (let ((buf (find-buffer-visiting (eglot--uri-to-path uri))))
          (condition-case err
              (if (not buf)
                  (push (list :uri uri :reason "not open in Emacs") failed)
                (with-current-buffer buf (save-buffer))
                (push uri saved))
            (error (push (list :uri uri :reason (error-message-string err)) failed)))))
      (list :saved (vconcat (nreverse saved)) :failed (vconcat (nreverse failed)))))

  ;; The question whether to trust the workspace's own configuration
  ;; (what its reasonix.toml and .mcp.json would run, where they would
  ;; send your keys).  Eglot's dialog takes an empty answer for its first
  ;; action, here "Trust and enable"; with this, an empty answer keeps
  ;; that configuration off.
  (cl-defmethod eglot-handle-request :around
    (_server (_method (eql window/showMessageRequest)) &key message actions &allow-other-keys)
    (let ((titles (mapcar (lambda (a) (plist-get a :title)) actions)))
      (if (not (equal titles '("Trust and enable" "Keep disabled")))
          (cl-call-next-method)
        (let ((answer (completing-read
                       (concat message "\nTrust it? (empty: Keep disabled) ") titles nil t)))
          (list :title (if (equal answer "Trust and enable") answer "Keep disabled")))))))

(defun reasonix-fix ()
  "Ask Reasonix to fix the problem at point.
With a Flymake diagnostic at point, from whichever backend reported it,
this is `eglot-code-actions' for that diagnostic: eglot only sends its
own server's diagnostics, and Reasonix computes none.  Without one,
Reasonix fixes what its own language servers (gopls) report on this
line: the command reasonix.fix."
  (interactive)
  (let ((server (eglot--current-server-or-lose))
        (diag (car (flymake-diagnostics (point)))))
    (if (not diag)
        (let ((started (eglot-execute-command
                        server 'reasonix.fix
                        (vector (list :uri (eglot--path-to-uri buffer-file-name)
                                      :position (eglot--pos-to-lsp-position))))))
          (message "Reasonix is fixing %s" (plist-get started :problem)))
      (let* ((range (list :start (eglot--pos-to-lsp-position (flymake-diagnostic-beg diag))
                          :end (eglot--pos-to-lsp-position (flymake-diagnostic-end diag))))
             (severity (pcase (flymake-diagnostic-type diag)
                         ((or :error 'eglot-error) 1)
                         ((or :warning 'eglot-warning) 2)
                         (_ 3)))
             (actions (jsonrpc-request
                       server :textDocument/codeAction
                       (list :textDocument (eglot--TextDocumentIdentifier)
                             :range range
                             :context (list :diagnostics
                                            (vector (list :range range :severity severity
                                                          :message (flymake-diagnostic-text diag)))
                                            :only ["quickfix"]))))
             (fix (or (seq-find (lambda (a) (string-prefix-p "Ask Reasonix to fix"
                                                             (plist-get a :title)))
                                actions)
                      (user-error "Reasonix offered no fix here")))
             (command (plist-get fix :command)))
        (eglot-execute-command server (intern (plist-get command :command))
                               (plist-get command :arguments))))))

(defun reasonix-trust (&optional revoke)
  "Ask again whether to trust this workspace's own Reasonix configuration.
What its reasonix.toml and .mcp.json bring that runs programs, connects
to servers, receives your keys or loosens the sandbox is off until you
trust it.  With a prefix argument, REVOKE that trust instead.  The
request does not time out: the question stays open while you read it."
  (interactive "P")
  (let ((action (if revoke "revoke" "review")))
    (jsonrpc-async-request
     (eglot--current-server-or-lose) :workspace/executeCommand
     (list :command "reasonix.trust" :arguments (vector (list :action action)))
     :timeout nil
     :success-fn
     (lambda (r)
       (let ((dir (plist-get r :workspace))
             (none (seq-empty-p (plist-get r :items))))
         (cond ((and revoke none)
                (message "Reasonix: nothing in the configuration of %s needs trust" dir))
               (revoke
                (message "Reasonix: forgot what you trusted in %s: its own servers and settings are off until you trust them again" dir))
               ((eq (plist-get r :granted) t)
                (message "Reasonix: you trust the configuration of %s: its own servers and settings are on" dir))
               ((and (not none) (not (eq (plist-get r :trusted) t)))
                (message "Reasonix: the configuration of %s stays off until you trust it (M-x reasonix-trust)" dir)))))
     :error-fn
     (lambda (err) (message "Reasonix: reasonix.trust failed: %s" (plist-get err :message))))))

;;; reasonix-eglot.el ends here
