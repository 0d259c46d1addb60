;;; reasonix-test-eglot.el --- driving eglot in the client programs  -*- lexical-binding: t -*-

;; Loaded by reasonix-test.el for the eglot programs: eglot connected
;; as M-x eglot connects it, its messages recorded, its dialogs answered
;; as a user would, its shutdown checked, its transcript.

;;; Code:

(require 'eglot)

(defun reasonix-test-connect (root file)
  "Visit FILE in the workspace ROOT and connect eglot, as M-x eglot does without its questions.
The server is the one `eglot-server-programs' names for FILE's mode.
Returns eglot's connection."
  (let ((default-directory root)
        (eglot-sync-connect t))
    (find-file file)
    (apply #'eglot (eglot--guess-contact)))
  (setq reasonix-test-server (or (eglot-current-server) (error "Eglot did not connect"))))

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key type message)
  (push (list type message) reasonix-test-messages)
  (reasonix-test-say "message (type %s): %s" type message))

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
    (reasonix-test-exited proc)
    ;; Eglot forgets the server in the process's sentinel, which runs
    ;; later: until it has, a new eglot for the project would find the
    ;; dead one.
    (reasonix-test-wait "eglot to forget the server"
                        (lambda () (not (memq server (gethash (eglot--project server) eglot--servers-by-project)))))))

(defun reasonix-test-transcript ()
  "Print eglot's record of the JSON-RPC traffic."
  (when reasonix-test-server
    (reasonix-test-say "JSON-RPC transcript:\n%s"
                       (with-current-buffer (jsonrpc-events-buffer reasonix-test-server)
                         (buffer-string)))))

;;; reasonix-test-eglot.el ends here
