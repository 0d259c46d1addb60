;;; eglot-memory.el --- Emacs's eglot remembers a preference across two Reasonix processes  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-memory.el
;;
;; lsp/clients_memory_test.go runs it with REASONIX_LSP (the server
;; command), REASONIX_TEST_ROOT (the workspace folder) and REASONIX_HOME
;; (shared by both servers: the user's memory lives there).  Eglot is
;; plain LSP; its window/showMessageRequest handler would read stdin in
;; batch, so the dialogs are answered here, as a user would: a permission
;; dialog "Allow once", the agent's question with one of its options.
;; Exits 0 only if every check held; otherwise 1, with the reason and
;; eglot's JSON-RPC transcript on stderr.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

;; Permission dialogs "Allow once", the agent's question one of its options.
(setq reasonix-test-answer
      (lambda (_message actions)
        (if (equal actions reasonix-test-permission) "Allow once" "Not in YAML")))

(defun reasonix-test-session (root prompt)
  "Start a Reasonix server on ROOT, run one turn of PROMPT, stop the server; return the turn's result."
  (let* ((default-directory root)
         (eglot-server-programs `((python-mode . (,(reasonix-test-env "REASONIX_LSP")))))
         (eglot-sync-connect t))
    (find-file (expand-file-name "hello.py" root))
    (apply #'eglot (eglot--guess-contact))
    (let* ((server (or (eglot-current-server) (error "Eglot did not connect")))
           (proc (jsonrpc--process server)))
      (setq reasonix-test-server server)
      (unwind-protect
          (let ((result (jsonrpc-request server :workspace/executeCommand
                                         (list :command "reasonix.ask"
                                               :arguments (vector (list :prompt prompt)))
                                         :timeout reasonix-test-timeout)))
            (reasonix-test-say "turn: %s" (plist-get result :text))
            (reasonix-test-shutdown server)
            result)
        (when (process-live-p proc)
          (delete-process proc))
        (kill-buffer (current-buffer))))))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (first (reasonix-test-session root "Remember: I indent with tabs.")))
    (unless (equal (plist-get first :stop) "done")
      (error "The first turn: %S" first))
    (unless (= (length reasonix-test-dialogs) 2)
      (error "%d dialogs, want 2: %S" (length reasonix-test-dialogs) reasonix-test-dialogs))
    (pcase-let ((`((,qmsg ,qactions) (,amsg ,aactions)) reasonix-test-dialogs))
      (unless (equal aactions reasonix-test-permission)
        (error "The first dialog is not a permission question: %s" aactions))
      (dolist (want '("Save the note user/indent" "Indent with tabs, never spaces." "asked each time"))
        (unless (string-search want amsg)
          (error "The permission dialog lacks %S:\n%s" want amsg)))
      (unless (equal qactions "Yes, everywhere|Not in YAML")
        (error "The question offers %s" qactions))
      (unless (equal qmsg "Reasonix asks: Tabs in YAML files too?")
        (error "The question reads %s" qmsg)))
    (let ((second (reasonix-test-session root "How should I indent hello.py?")))
      (unless (and (equal (plist-get second :stop) "done") (string-search "tabs" (plist-get second :text)))
        (error "The second turn: %S" second)))
    (unless (= (length reasonix-test-dialogs) 2)
      (error "The second session asked: %S" (car reasonix-test-dialogs)))
    (reasonix-test-say "ok: the note was saved with approval, the question answered, the note used by the next process")))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-memory.el ends here
