;;; reasonix-test-lsp-mode.el --- driving lsp-mode in the client programs  -*- lexical-binding: t -*-

;; Loaded by reasonix-test.el for the lsp-mode programs (lsp-mode.el,
;; lsp-mode-review.el): Reasonix registered as lsp-mode users register a
;; server, beside gopls (when it is on PATH), started the way they start
;; it (`lsp' from the major mode's hook, so any Go file lsp-mode loads is
;; reported open), its dialogs answered as a user would, its shutdown
;; checked, its transcript.
;;
;; Debian's elpa-lsp-mode (8.0.0) is on the load path through the site
;; start files (the programs run without -Q), but batch Emacs, like
;; `emacs -q', does not activate packages: without their autoloads
;; lsp-mode fails as it configures a buffer (`lsp-modeline-*' and
;; `lsp-headerline-breadcrumb-mode' are void), so they are activated
;; here as a user's Emacs does at startup.

;;; Code:

(package-activate-all)
(require 'lsp-mode)

(defvar reasonix-test-init-options nil
  "The initializationOptions the server is started with.")

(setq lsp-session-file (expand-file-name "session" (make-temp-file "reasonix-lsp-mode-" t))
      ;; Reasonix, and gopls beside it when it is on PATH (lsp-mode's own
      ;; client for it): none of lsp-mode's other clients.
      lsp-enabled-clients '(reasonix gopls)
      lsp-restart 'ignore
      lsp-keep-workspace-alive nil
      lsp-log-io t
      ;; The whole wait of a request sent with `lsp-request' (lsp-mode's
      ;; default of 10 s is a request the server answers at once).
      lsp-response-timeout reasonix-test-timeout)

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection (lambda () (list (reasonix-test-env "REASONIX_LSP"))))
  :major-modes '(go-mode)
  :server-id 'reasonix
  ;; Beside the language's own server, not instead of it.
  :add-on? t
  :initialization-options (lambda () reasonix-test-init-options)))

;; As a user's init file: lsp-mode starts in every Go buffer, including
;; the ones it loads itself to apply an edit.
(add-hook 'go-mode-hook #'lsp)

;; lsp-mode asks with `completing-read' in the minibuffer, which in
;; batch would read stdin.  Its messages come as hash tables, read with
;; its own accessors.
(advice-add 'lsp--window-log-message-request :override
            (lambda (params)
              (let ((message (lsp:show-message-request-params-message params))
                    (titles (mapconcat #'lsp:message-action-item-title
                                       (lsp:show-message-request-params-actions? params) "|")))
                (push (list message titles) reasonix-test-dialogs)
                (reasonix-test-say "dialog: %s [%s]" message titles)
                (funcall reasonix-test-answer message titles))))

(advice-add 'lsp--window-show-message :before
            (lambda (_workspace params)
              (let ((type (lsp:show-message-request-params-type params))
                    (message (lsp:show-message-request-params-message params)))
                (push (list type message) reasonix-test-messages)
                (reasonix-test-say "message (type %s): %s" type message))))

(defun reasonix-test-connect (root file)
  "Visit FILE in the workspace ROOT and wait until lsp-mode is connected.
Returns Reasonix's workspace (lsp-mode's connection to one server)."
  ;; The folder is the project's, as a user answers lsp-mode's first
  ;; question about it.
  (lsp-workspace-folders-add root)
  (find-file file)
  (unless (eq major-mode 'go-mode)
    (error "%s opened in %s" file major-mode))
  (let ((ws nil))
    (reasonix-test-wait "lsp-mode to start the server"
                        (lambda ()
                          (setq ws (seq-find (lambda (w) (eq (lsp--client-server-id (lsp--workspace-client w))
                                                             'reasonix))
                                             (lsp-workspaces)))))
    (reasonix-test-wait "the server to initialize"
                        (lambda () (eq (lsp--workspace-status ws) 'initialized)))
    (setq reasonix-test-server ws)
    ws))

(defun reasonix-test-request (ws method params)
  "Send METHOD with PARAMS to the server of WS alone, and wait for its answer.
lsp-mode sends a request to every server of the buffer that can take it:
gopls would answer workspace/executeCommand too, with an error for a
command it does not know, which lsp-mode may report in place of
Reasonix's own answer."
  (with-lsp-workspace ws
    (lsp-request method params)))

(defun reasonix-test-shutdown (ws)
  "Send the server of WS shutdown and exit, and fail unless it exits 0.
lsp-mode's own shutdown kills the process straight after exit, so its
exit code would be lost."
  (let ((proc (lsp--workspace-cmd-proc ws)))
    (setf (lsp--workspace-shutdown-action ws) 'shutdown)
    (reasonix-test-request ws "shutdown" nil)
    (with-lsp-workspace ws
      (lsp-notify "exit" nil))
    (reasonix-test-exited proc)))

(defun reasonix-test-transcript ()
  "Print lsp-mode's record of the JSON-RPC traffic."
  (when reasonix-test-server
    (reasonix-test-say "JSON-RPC transcript:\n%s"
                       (with-current-buffer (lsp--get-log-buffer-create reasonix-test-server)
                         (buffer-string)))))

;;; reasonix-test-lsp-mode.el ends here
