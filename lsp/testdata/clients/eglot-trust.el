;;; eglot-trust.el --- Emacs's eglot opens a hostile repository's folder  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-trust.el
;;
;; lsp/clients_trust_test.go runs it with REASONIX_LSP (the server
;; command), REASONIX_TEST_ROOT (the workspace folder), REASONIX_TEST_MARKS
;; (where the repository's programs and servers leave a file when they
;; act: empty until trusted), REASONIX_TEST_STARTED (the marks to wait for
;; once trusted) and REASONIX_TEST_ENTRIES (what the trust question must
;; list), both |-separated.  The server asks whether to trust the
;; repository's configuration, which starts nothing until the user does:
;; the question is answered here "Keep disabled", then, asked again
;; through reasonix.trust, "Trust and enable".  Exits 0 only if every
;; check held; otherwise 1, with the reason and eglot's JSON-RPC
;; transcript on stderr.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

(defconst reasonix-test-trust "Trust and enable|Keep disabled"
  "The actions of the trust question.")

(defvar reasonix-test-trust-answer "Keep disabled"
  "How the trust question is answered now.")

(setq reasonix-test-answer (lambda (_message _actions) reasonix-test-trust-answer))

(defun reasonix-test-acted ()
  "The marks left so far."
  (directory-files (reasonix-test-env "REASONIX_TEST_MARKS") nil directory-files-no-dot-files-regexp))

(defun reasonix-test-command (server command arg)
  "Run COMMAND with ARG on SERVER and return its result."
  (jsonrpc-request server :workspace/executeCommand
                   (list :command command :arguments (vector arg))
                   :timeout reasonix-test-timeout))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (default-directory root)
         (eglot-server-programs `((python-mode . (,(reasonix-test-env "REASONIX_LSP"))))))
    (let ((server (reasonix-test-connect root (expand-file-name "hello.py" root))))
      ;; Opening the folder asks; nothing of the repository's has acted.
      (reasonix-test-wait "the trust question" (lambda () (or reasonix-test-dialogs (reasonix-test-acted))))
      (when (reasonix-test-acted)
        (error "The repository's configuration acted before it was trusted: %S" (reasonix-test-acted)))
      (pcase-let ((`(,message ,actions) (car reasonix-test-dialogs)))
        (unless (equal actions reasonix-test-trust)
          (error "The trust question offers %s" actions))
        (dolist (entry (split-string (reasonix-test-env "REASONIX_TEST_ENTRIES") "|"))
          (unless (string-search entry message)
            (error "The trust question does not list %s:\n%s" entry message))))
      ;; Kept disabled, everything else works.
      (let ((turn (reasonix-test-command server "reasonix.ask" '(:prompt "Say hello")))
            (mcp (reasonix-test-command server "reasonix.ask" '(:prompt "/mcp"))))
        (unless (equal (plist-get turn :text) "Hello from your own model.")
          (error "The turn: %S" turn))
        (unless (string-search "No MCP servers are configured" (plist-get mcp :text))
          (error "/mcp lists %s" (plist-get mcp :text))))
      (when (reasonix-test-acted)
        (error "The repository's configuration acted though kept disabled: %S" (reasonix-test-acted)))
      (unless (= (length reasonix-test-dialogs) 1)
        (error "%d dialogs: %S" (length reasonix-test-dialogs) reasonix-test-dialogs))
      ;; Asked again and trusted: its servers start.
      (setq reasonix-test-trust-answer "Trust and enable")
      (let ((trust (reasonix-test-command server "reasonix.trust" '(:action "review"))))
        (unless (and (eq (plist-get trust :trusted) t) (eq (plist-get trust :granted) t))
          (error "reasonix.trust answered %S" trust)))
      (unless (and (= (length reasonix-test-dialogs) 2) (equal (cadr (car reasonix-test-dialogs)) reasonix-test-trust))
        (error "The dialogs: %S" reasonix-test-dialogs))
      (let ((started (split-string (reasonix-test-env "REASONIX_TEST_STARTED") "|")))
        (reasonix-test-wait (format "the marks %s" started)
                            (lambda () (cl-every (lambda (m) (member m (reasonix-test-acted))) started))))
      (reasonix-test-shutdown server)
      (reasonix-test-say "ok: kept disabled, nothing acted; trusted, %S" (reasonix-test-acted)))))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-trust.el ends here
