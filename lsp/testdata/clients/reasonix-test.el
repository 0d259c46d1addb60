;;; reasonix-test.el --- what the Emacs client programs share  -*- lexical-binding: t -*-

;; Loaded by the eglot and lsp-mode programs here, which lsp/*_test.go
;; run with `emacs --batch' in this directory: messages on stderr,
;; waiting on the event loop, the dialogs answered as a user would, and a
;; run that exits 0 only if every check held.  What drives each client
;; is in reasonix-test-eglot.el and reasonix-test-lsp-mode.el; a program
;; names its client in `reasonix-test-client' before loading this file
;; (eglot unless it says otherwise).

;;; Code:

(require 'cl-lib)

(defvar reasonix-test-client 'eglot
  "The client the program drives: `eglot' or `lsp-mode'.")

(defconst reasonix-test-timeout 45
  "Seconds to wait for any one thing.")

(defconst reasonix-test-permission "Allow once|Allow for session|Always allow|Deny"
  "The actions of a permission dialog, as the server offers them.")

(defvar reasonix-test-dialogs nil "Dialogs, newest first: (MESSAGE ACTIONS).")
(defvar reasonix-test-server nil "The client's connection to the server, for its transcript.")

(defvar reasonix-test-messages nil "window/showMessage notifications, newest first: (TYPE MESSAGE).")

;; Emacs 28 has no Go mode; a stand-in of the same name gives the buffer
;; the major mode (and so the language id, "go") a user's would have.
(unless (fboundp 'go-mode)
  (define-derived-mode go-mode prog-mode "Go")
  (add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode)))

(defvar reasonix-test-answer (lambda (_message _actions) "Allow once")
  "How a dialog is answered: a function of its message and its action titles joined by |.")

(defun reasonix-test-say (format-string &rest args)
  (princ (concat (symbol-name reasonix-test-client) ": " (apply #'format format-string args) "\n") #'external-debugging-output))

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

(defun reasonix-test-diagnostic ()
  "The diagnostic REASONIX_TEST_DIAGNOSTIC gives (JSON), as a plist."
  (json-parse-string (reasonix-test-env "REASONIX_TEST_DIAGNOSTIC")
                     :object-type 'plist :null-object nil :false-object :json-false))

(defun reasonix-test-turn-ended (n)
  "Wait for the Nth turn's end, and fail unless it ended with an answer.
A turn's answer, or its error, comes as window/showMessage."
  (reasonix-test-wait (format "turn %d's answer" n)
                      (lambda () (>= (length reasonix-test-messages) n)))
  (pcase-let ((`(,type ,message) (car reasonix-test-messages)))
    (unless (and (= (length reasonix-test-messages) n) (= type 3))
      (error "Turn %d did not end with an answer: %S" n reasonix-test-messages))
    (reasonix-test-say "turn %d ended: %s" n message)))

(defun reasonix-test-permission-dialogs (n)
  "Fail unless N dialogs were asked, each with the four permission actions."
  (unless (= (length reasonix-test-dialogs) n)
    (error "%d permission dialogs, want %d" (length reasonix-test-dialogs) n))
  (dolist (d reasonix-test-dialogs)
    (unless (equal (cadr d) reasonix-test-permission)
      (error "Dialog actions %s" (cadr d)))))

(defun reasonix-test-exited (proc)
  "Wait for the server process PROC to exit, and fail unless it exited 0."
  (reasonix-test-wait "the server to exit" (lambda () (not (process-live-p proc))))
  (unless (and (eq (process-status proc) 'exit) (= (process-exit-status proc) 0))
    (error "The server ended with %s %s" (process-status proc) (process-exit-status proc))))

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

(load (expand-file-name (format "reasonix-test-%s.el" reasonix-test-client)) nil t)

(provide 'reasonix-test)

;;; reasonix-test.el ends here
