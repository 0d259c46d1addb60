;;; reasonix-test.el --- what the eglot client programs share  -*- lexical-binding: t -*-

;; Loaded by eglot.el and eglot-memory.el, which lsp/clients_test.go runs
;; with `emacs --batch' in this directory: messages on stderr, waiting on
;; the event loop, the dialogs answered as a user would, and a run that
;; exits 0 only if every check held.

;;; Code:

(require 'cl-lib)
(require 'eglot)

(defconst reasonix-test-timeout 45
  "Seconds to wait for any one thing.")

(defconst reasonix-test-permission "Allow once|Allow for session|Always allow|Deny"
  "The actions of a permission dialog, as the server offers them.")

(defvar reasonix-test-dialogs nil "Dialogs, newest first: (MESSAGE ACTIONS).")
(defvar reasonix-test-server nil "The eglot connection, for its transcript.")

(defvar reasonix-test-messages nil "window/showMessage notifications, newest first: (TYPE MESSAGE).")

;; Emacs 28 has no Go mode; a stand-in of the same name gives the buffer
;; the major mode (and so the language id, "go") a user's would have.
(unless (fboundp 'go-mode)
  (define-derived-mode go-mode prog-mode "Go")
  (add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode)))

;; A turn's answer, or its error, comes as window/showMessage.
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key type message)
  (push (list type message) reasonix-test-messages)
  (reasonix-test-say "message (type %s): %s" type message))

(defvar reasonix-test-answer (lambda (_message _actions) "Allow once")
  "How a dialog is answered: a function of its message and its action titles joined by |.")

(defun reasonix-test-say (format-string &rest args)
  (princ (concat "eglot: " (apply #'format format-string args) "\n") #'external-debugging-output))

(defun reasonix-test-env (name)
  (let ((v (getenv name)))
    (unless (and v (not (string-empty-p v)))
      (error "%s is not set" name))
    v))

(defun reasonix-test-wait (what pred)
  "Run the event loop until PRED holds, or fail naming WHAT."
  (let ((deadline (+ (float-time) reasonix-test-timeout)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.02))))

;; Eglot's own handler asks with `completing-read', which in batch would
;; read stdin.
(cl-defmethod eglot-handle-request
  (_server (_method (eql window/showMessageRequest)) &key _type message actions)
  (let ((titles (mapconcat (lambda (a) (plist-get a :title)) actions "|")))
    (push (list message titles) reasonix-test-dialogs)
    (reasonix-test-say "dialog: %s [%s]" message titles)
    (list :title (funcall reasonix-test-answer message titles))))

(defun reasonix-test-shutdown (server)
  "Send SERVER shutdown and exit by hand, and fail unless it exits 0.
`eglot-shutdown' kills the process straight after exit, so its exit
code would be lost."
  (let ((proc (jsonrpc--process server)))
    (setf (eglot--shutdown-requested server) t)
    (jsonrpc-request server :shutdown nil)
    (jsonrpc-notify server :exit nil)
    (reasonix-test-wait "the server to exit" (lambda () (not (process-live-p proc))))
    (unless (and (eq (process-status proc) 'exit) (= (process-exit-status proc) 0))
      (error "The server ended with %s %s" (process-status proc) (process-exit-status proc)))))

(defun reasonix-test-transcript ()
  "Print eglot's record of the JSON-RPC traffic."
  (when reasonix-test-server
    (reasonix-test-say "JSON-RPC transcript:\n%s"
                       (with-current-buffer (jsonrpc-events-buffer reasonix-test-server)
                         (buffer-string)))))

(defun reasonix-test-run (main)
  "Run MAIN and exit: 0 if it returned, else 1 with the reason and the transcript."
  (condition-case err
      (progn
        (funcall main)
        (kill-emacs 0))
    (error
     (reasonix-test-say "FAIL: %s" (error-message-string err))
     (reasonix-test-transcript)
     (kill-emacs 1))))

(provide 'reasonix-test)

;;; reasonix-test.el ends here
