;;; eglot-rewind.el --- eglot rewinds a session's two turns, in batch  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-rewind.el
;;
;; lsp/clients_rewind_test.go runs it (rewind.txtar) with the environment:
;;   REASONIX_LSP        the server command (`reasonix lsp`)
;;   REASONIX_TEST_ROOT  the workspace folder
;;   REASONIX_TEST_FILE  calc.go, which the first turn edits in its buffer
;;
;; Plain LSP, as users run eglot: two turns through reasonix.ask, the
;; user's own change to user.txt, then the commands through
;; `eglot-execute-command': reasonix.checkpoints lists both turns,
;; reasonix.rewind with preview changes nothing, reasonix.rewind to turn
;; 1 puts the buffer back (a workspace edit eglot applies) and the closed
;; files on disk, and answers with its plan; bad arguments are refused;
;; a third turn runs.  Exits 0 only if every check held.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

(setq eglot-confirm-server-initiated-edits nil)

(defun reasonix-test-ask (server prompt &optional session)
  "Run a turn of PROMPT (in SESSION) and return its result, which must be done."
  (let ((turn (eglot-execute-command
               server 'reasonix.ask
               (vector (if session (list :prompt prompt :sessionId session) (list :prompt prompt))))))
    (unless (equal (plist-get turn :stop) "done")
      (error "The turn %S: %S" prompt turn))
    turn))

(defun reasonix-test-refused (server command argument)
  "Execute COMMAND with ARGUMENT, which must fail; return the error's text."
  (condition-case err
      (progn (eglot-execute-command server command (vector argument))
             (error "%s with %S succeeded" command argument))
    (jsonrpc-error (format "%S" err))))

(defun reasonix-test-action-of (plan name)
  "What PLAN does to the file NAME of the workspace."
  (let ((f (cl-find-if (lambda (f) (string-suffix-p (concat "/" name) (plist-get f :path)))
                       (plist-get plan :files))))
    (plist-get f :action)))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (default-directory root)
         (eglot-server-programs `((go-mode . (,(reasonix-test-env "REASONIX_LSP"))))))
    (let* ((server (reasonix-test-connect root file))
           (proc (jsonrpc--process server))
           (original (buffer-string)))
      (unwind-protect
          (let* ((first (reasonix-test-ask server "First turn: fix Add, and user.txt."))
                 (session (plist-get first :sessionId)))
            (unless (string-match-p "return a \\+ b" (buffer-string))
              (error "The first turn's edit is not in the buffer:\n%s" (buffer-string)))
            (reasonix-test-ask server "Second turn: the other files." session)
            (unless (and (file-exists-p (expand-file-name "made.txt" root))
                         (not (file-exists-p (expand-file-name "gone.txt" root))))
              (error "The second turn's command did not make made.txt and remove gone.txt"))
            (reasonix-test-say "two turns ran in session %s" session)

            ;; The user changes user.txt over the agent's change.
            (with-temp-file (expand-file-name "user.txt" root) (insert "gamma\n"))

            (let* ((listed (eglot-execute-command server 'reasonix.checkpoints (vector (list :sessionId session))))
                   (turns (append (plist-get listed :turns) nil)))
              (unless (and (equal (plist-get listed :sessionId) session)
                           (equal (mapcar (lambda (c) (plist-get c :turn)) turns) '(1 2))
                           (string-prefix-p "First turn" (plist-get (car turns) :prompt)))
                (error "reasonix.checkpoints answered %S" listed)))

            (let ((preview (eglot-execute-command server 'reasonix.rewind
                                                  (vector (list :sessionId session :turn 1 :preview t)))))
              (unless (and (eq (plist-get preview :done) :json-false)
                           (equal (reasonix-test-action-of preview "made.txt") "remove")
                           (file-exists-p (expand-file-name "made.txt" root))
                           (string-match-p "return a \\+ b" (buffer-string)))
                (error "The preview %S, or it changed something" preview)))

            (let ((plan (eglot-execute-command server 'reasonix.rewind
                                               (vector (list :sessionId session :turn 1)))))
              (unless (and (eq (plist-get plan :done) t)
                           (equal (append (plist-get plan :turns) nil) '(1 2))
                           (equal (reasonix-test-action-of plan "calc.go") "restore")
                           (equal (reasonix-test-action-of plan "made.txt") "remove")
                           (equal (reasonix-test-action-of plan "gone.txt") "recreate")
                           (equal (reasonix-test-action-of plan "shared.txt") "restore")
                           (equal (reasonix-test-action-of plan "user.txt") "conflict"))
                (error "reasonix.rewind answered %S" plan)))
            (unless (string= (buffer-string) original)
              (error "The buffer after the rewind:\n%s" (buffer-string)))
            (unless (cl-find-if (lambda (m) (string-prefix-p "Reasonix: Rewound to before turn 1" (cadr m)))
                                reasonix-test-messages)
              (error "No summary of the rewind among %S" reasonix-test-messages))
            (reasonix-test-say "rewound to before turn 1")

            (dolist (bad (list (list :sessionId session :turn 7)
                               (list :sessionId session :turn "1")
                               (list :sessionId "no-such-session" :turn 1)
                               (list :turn 1)))
              (let ((err (reasonix-test-refused server 'reasonix.rewind bad)))
                (unless (string-match-p "-32602" err)
                  (error "reasonix.rewind %S failed with %s, not -32602" bad err))))

            (let ((third (reasonix-test-ask server "Third turn: start again." session)))
              (unless (equal (plist-get third :text) "Third turn done.")
                (error "The third turn answered %S" third)))

            (save-buffer)
            (reasonix-test-shutdown server)
            (reasonix-test-say "ok"))
        (when (process-live-p proc)
          (delete-process proc))))))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-rewind.el ends here
