;;; eglot-memory.el --- Emacs's eglot over two Reasonix processes: memory and delegation  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-memory.el
;;
;; lsp/clients_memory_test.go runs it with REASONIX_LSP (the server
;; command), REASONIX_TEST_ROOT (the workspace folder) and REASONIX_HOME
;; (shared by both servers: the user's memory and sessions live there),
;; playing memory-delegation.txtar.  The first server remembers a
;; preference and asks a question; the second finds the first's fact
;; through history, delegates two research tasks and an edit task, and
;; follows the preference.  Eglot is plain LSP; its
;; window/showMessageRequest handler would read stdin in batch, so the
;; dialogs are answered here, as a user would: a permission dialog "Allow
;; once", the agent's question with one of its options.  Exits 0 only if
;; every check held; otherwise 1, with the reason and eglot's JSON-RPC
;; transcript on stderr.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)

;; Permission dialogs "Allow once", the agent's question one of its options.
(setq reasonix-test-answer
      (lambda (_message actions)
        (if (equal actions reasonix-test-permission) "Allow once" "Not in YAML")))

;; Apply the server's edits without asking, as a user who trusts it
;; would have configured.
(setq eglot-confirm-server-initiated-edits nil)

(defun reasonix-test-session (root prompt)
  "Start a Reasonix server on ROOT with hello.py open, run one turn of PROMPT, stop the server.
Return the turn's result and the buffer's text after the turn; a
modified buffer is saved."
  (let* ((default-directory root)
         (eglot-server-programs `((python-mode . (,(reasonix-test-env "REASONIX_LSP"))))))
    (let* ((server (reasonix-test-connect root (expand-file-name "hello.py" root)))
           (proc (jsonrpc--process server)))
      (unwind-protect
          (let ((result (jsonrpc-request server :workspace/executeCommand
                                         (list :command "reasonix.ask"
                                               :arguments (vector (list :prompt prompt)))
                                         :timeout reasonix-test-timeout))
                (text (buffer-substring-no-properties (point-min) (point-max))))
            (reasonix-test-say "turn: %s" (plist-get result :text))
            (when (buffer-modified-p)
              (save-buffer))
            (reasonix-test-shutdown server)
            (list result text))
        (when (process-live-p proc)
          (delete-process proc))
        (kill-buffer (current-buffer))))))

(defun reasonix-test-main ()
  (let ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT"))))
    (pcase-let ((`(,first ,_) (reasonix-test-session root "Remember: I indent with tabs. Staging listens on port 8443.")))
      (unless (equal (plist-get first :stop) "done")
        (error "The first turn: %S" first)))
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
    (pcase-let ((`(,second ,text) (reasonix-test-session root "Which port does staging use? And indent hello.py my way.")))
      (unless (and (equal (plist-get second :stop) "done") (string-search "8443" (plist-get second :text)))
        (error "The second turn: %S" second))
      ;; One more dialog: the edit task's edit, under the parent's
      ;; permissions; the edit itself arrived as workspace/applyEdit.
      (unless (= (length reasonix-test-dialogs) 3)
        (error "%d dialogs, want 3: %S" (length reasonix-test-dialogs) reasonix-test-dialogs))
      (pcase-let ((`(,emsg ,eactions) (car reasonix-test-dialogs)))
        (unless (and (equal eactions reasonix-test-permission) (string-search "edit_file on hello.py" emsg))
          (error "The third dialog: %s [%s]" emsg eactions)))
      (unless (equal text "def hello():\n\treturn \"hi\"\n")
        (error "The buffer after the turn:\n%s" text)))
    (reasonix-test-say "ok: the note saved with approval, the question answered; the next process found the fact, delegated, and edited with tabs")))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-memory.el ends here
