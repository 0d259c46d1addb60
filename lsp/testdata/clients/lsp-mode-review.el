;;; lsp-mode-review.el --- lsp-mode reviews Reasonix's proposed changes, in batch  -*- lexical-binding: t -*-

;; emacs --batch -l lsp-mode-review.el
;;
;; lsp/clients_review_test.go runs it (review.txtar) with the environment:
;;   REASONIX_LSP        the server command (`reasonix lsp`)
;;   REASONIX_TEST_ROOT  the workspace folder
;;   REASONIX_TEST_FILE  calc.go, which the agent changes in three hunks
;;
;; Plain LSP, as users run lsp-mode, with review = "propose" in
;; initializationOptions: the agent's changes are diagnostics, and no
;; permission dialog asks about them first (the review is the question).
;; On each line, the code actions are lsp-mode's own for the point
;; (`lsp-code-actions-at-point', with the line's diagnostics) and run as
;; M-x lsp-execute-code-action runs them: the fix of Add is accepted (the
;; hunk arrives as a workspace edit lsp-mode applies) and the comment
;; rejected; the user then edits the third hunk's line, and accepting
;; that stale hunk is refused.  Exits 0 only if every check held.

;;; Code:

(defvar reasonix-test-client 'lsp-mode)
(load (expand-file-name "reasonix-test.el") nil t)

(setq reasonix-test-init-options '(:review "propose"))

(defun reasonix-test-goto-line (n)
  (goto-char (point-min))
  (forward-line (1- n)))

(defun reasonix-test-line (n)
  (save-excursion
    (reasonix-test-goto-line n)
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun reasonix-test-actions-on (n)
  "The code actions lsp-mode offers on line N, by title."
  (save-excursion
    (reasonix-test-goto-line n)
    (mapcar (lambda (a) (cons (lsp:code-action-title a) a))
            (lsp-code-actions-at-point))))

(defun reasonix-test-run-action (n title)
  "Run the code action TITLE of line N as lsp-mode does, and return the command's answer."
  (let ((action (or (cdr (assoc title (reasonix-test-actions-on n)))
                    (error "No %S on line %d" title n))))
    (lsp-execute-code-action action)))

(defun reasonix-test-diagnostics ()
  (append (lsp--get-buffer-diagnostics) nil))

(defun reasonix-test-main ()
  (let* ((root (file-name-as-directory (reasonix-test-env "REASONIX_TEST_ROOT")))
         (file (reasonix-test-env "REASONIX_TEST_FILE"))
         (default-directory root)
         (ws (reasonix-test-connect root file))
         (proc (lsp--workspace-cmd-proc ws))
         (original (buffer-string))
         (uri (lsp--buffer-uri)))
    (unwind-protect
        (progn
          (let ((turn (reasonix-test-request ws "workspace/executeCommand"
                                             (list :command "reasonix.ask"
                                                   :arguments (vector (list :prompt "Review these fixes to calc.go." :uri uri))))))
            (unless (equal (lsp-get turn :stop) "done")
              (error "The turn: %S" turn)))
          (unless (string= (buffer-string) original)
            (error "The buffer changed before any hunk was accepted"))
          (when reasonix-test-dialogs
            (error "Asked %d permission dialogs about proposals: %S" (length reasonix-test-dialogs) reasonix-test-dialogs))
          (reasonix-test-wait "three proposal diagnostics" (lambda () (= 3 (length (reasonix-test-diagnostics)))))
          (dolist (d (reasonix-test-diagnostics))
            (unless (and (equal (lsp:diagnostic-source? d) "reasonix") (eql (lsp:diagnostic-severity? d) 3))
              (error "Diagnostic %S" d)))

          ;; Accept the fix of Add (line 5).
          (let ((res (reasonix-test-run-action 5 "Accept this change")))
            (unless (and (eql (lsp-get res :hunks) 1) (eql (lsp-get res :pending) 2))
              (error "Accept answered %S" res)))
          (unless (equal (reasonix-test-line 5) "\treturn a + b")
            (error "Line 5 after accepting: %S" (reasonix-test-line 5)))
          (reasonix-test-say "accepted the first hunk")

          ;; Reject the comment (an insertion before line 9).
          (reasonix-test-wait "two diagnostics" (lambda () (= 2 (length (reasonix-test-diagnostics)))))
          (let ((res (reasonix-test-run-action 9 "Reject this change")))
            (unless (and (eql (lsp-get res :hunks) 1) (eql (lsp-get res :pending) 1))
              (error "Reject answered %S" res)))
          (reasonix-test-say "rejected the second hunk")

          ;; The user edits the third hunk's line: it goes stale.
          (save-excursion
            (reasonix-test-goto-line 15)
            (end-of-line)
            (insert " // checked by hand"))
          (reasonix-test-wait "the stale diagnostic"
                              (lambda () (let ((ds (reasonix-test-diagnostics)))
                                           (and (= 1 (length ds))
                                                (string-prefix-p "Stale proposed change"
                                                                 (lsp:diagnostic-message (car ds)))))))
          (let ((titles (mapcar #'car (reasonix-test-actions-on 15))))
            (when (member "Accept this change" titles)
              (error "A stale hunk offers \"Accept this change\""))
            (unless (member "Reject this change" titles)
              (error "A stale hunk offers no \"Reject this change\": %S" titles)))
          (let* ((pending (reasonix-test-request ws "reasonix/review" (list :uri uri)))
                 (hunk (aref (lsp-get (aref (lsp-get pending :files) 0) :hunks) 0))
                 (refused (condition-case err
                              (progn (reasonix-test-request
                                                      ws "workspace/executeCommand"
                                                      (list :command "reasonix.review.accept"
                                                            :arguments (vector (list :uri uri :hunk (lsp-get hunk :id)))))
                                     nil)
                            (error (error-message-string err)))))
            (unless (eq (lsp-get hunk :stale) t)
              (error "reasonix/review: %S" pending))
            (unless (and refused (string-match-p "edited since it was proposed" refused))
              (error "Accepting the stale hunk: %S" refused))
            (reasonix-test-say "the stale hunk was refused"))

          (save-buffer)
          (reasonix-test-shutdown ws)
          (reasonix-test-say "ok")
          (when (getenv "REASONIX_TEST_TRANSCRIPT")
            (reasonix-test-transcript)))
      (when (process-live-p proc)
        (delete-process proc)))))

(reasonix-test-run #'reasonix-test-main)

;;; lsp-mode-review.el ends here
