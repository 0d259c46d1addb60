;;; eglot-graph.el --- eglot gets the fix for what gopls reports, sending no diagnostic  -*- lexical-binding: t -*-

;; emacs --batch -l eglot-graph.el
;;
;; lsp/clients_graph_test.go runs it with the environment of eglot.el
;; (REASONIX_LSP, REASONIX_TEST_ROOT, REASONIX_TEST_FILE, REASONIX_TEST_WANT)
;; and REASONIX_TEST_SNIPPET, the eglot snippet of docs/editors.md
;; (editors/emacs/reasonix-eglot.el), which it loads as a user does.
;;
;; The buffer's file does not build.  Eglot sends with a request for code
;; actions only the diagnostics its own server published, and Reasonix
;; publishes none: the requests carry no diagnostic.  On Add's line,
;; `eglot-code-actions' (as M-x eglot-code-actions runs it, the fix chosen
;; from its menu) must offer and run "Ask Reasonix to fix: undefined: zz",
;; found by gopls behind Reasonix's project graph; gopls starts with the
;; first request, so the requests are repeated until it has reported.  On
;; Sub's line, where Flymake shows nothing, M-x reasonix-fix (the snippet)
;; runs the command reasonix.fix.  Exits 0 only if every check held.

;;; Code:

(load (expand-file-name "reasonix-test.el") nil t)
(load (reasonix-test-env "REASONIX_TEST_SNIPPET") nil t)

(defun reasonix-test-goto (line text)
  "Put point on TEXT in LINE (1-based), and check no Flymake diagnostic is there."
  (goto-char (point-min))
  (forward-line (1- line))
  (unless (search-forward text (line-end-position) t)
    (error "No %S on line %d" text line))
  (goto-char (match-beginning 0))
  (when (flymake-diagnostics (line-beginning-position) (line-end-position))
    (error "Flymake shows diagnostics on line %d: eglot would send them" line)))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (want (reasonix-test-env "REASONIX_TEST_WANT"))
         (default-directory root)
         ;; The snippet's entry, with the test's server command.
         (eglot-server-programs `((go-mode . (,(reasonix-test-env "REASONIX_LSP")
                                              :initializationOptions (:client (:saveDocuments t))))))
         (title "Ask Reasonix to fix: undefined: zz"))
    (let* ((server (reasonix-test-connect root file))
           (proc (jsonrpc--process server)))
      (unwind-protect
          (progn
            (reasonix-test-goto 5 "zz")
            (let ((tries 0))
              (reasonix-test-wait
               "gopls's problem among the code actions at point"
               (lambda ()
                 (setq tries (1+ tries))
                 (cl-find title (eglot-code-actions (point)) :key (lambda (a) (plist-get a :title)) :test #'equal)))
              (reasonix-test-say "code action %S offered at the %d. request" title tries))
            ;; M-x eglot-code-actions: its menu, answered with the fix.
            (let ((last-nonmenu-event ?\r))
              (cl-letf (((symbol-function 'completing-read)
                         (lambda (_prompt collection &rest _)
                           (or (car (assoc title collection))
                               (error "The menu lacks %S: %S" title (mapcar #'car collection))))))
                (eglot-code-actions (point) nil nil t)))
            (reasonix-test-turn-ended 1)
            (unless (string-match-p "return a \\+ b" (buffer-string))
              (error "The buffer after the code action's turn:\n%s" (buffer-string)))

            ;; M-x reasonix-fix where Flymake shows nothing: reasonix.fix.
            (reasonix-test-goto 10 "yy")
            (call-interactively #'reasonix-fix)
            (reasonix-test-turn-ended 2)
            (let ((text (buffer-substring-no-properties (point-min) (point-max))))
              (unless (string= text want)
                (error "The buffer after the turns:\n%s" text)))
            ;; Saved by reasonix/saveDocuments before the agent's go test.
            (when (buffer-modified-p)
              (error "The buffer is modified: the agent's command did not see the fixes"))
            (unless (= (length reasonix-test-dialogs) 3)
              (error "%d permission dialogs, want 3" (length reasonix-test-dialogs)))
            (reasonix-test-shutdown server)
            (reasonix-test-say "ok: both fixes landed, %d dialogs, server exit 0" (length reasonix-test-dialogs))
            (when (getenv "REASONIX_TEST_TRANSCRIPT")
              (reasonix-test-transcript)))
        (when (process-live-p proc)
          (delete-process proc))))))

(reasonix-test-run #'reasonix-test-main)

;;; eglot-graph.el ends here
