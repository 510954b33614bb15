/** Shell expansions a password must not contain: `$VAR`, `${...}`, `$(...)`, backticks (upstream's default rule). */
const SHELL_EXPANSION = /\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`/;

/**
 * Upstream `PasswordValidator`: returns the problem, or undefined when the password is acceptable.
 * Passwords end up in shell-sourced files (cloudrc), hence the expansion rule.
 */
export function passwordProblem(password: string): string | undefined {
  if (password === '') return 'empty password not allowed';
  if (SHELL_EXPANSION.test(password)) return 'password does not meet the requirements';
  return undefined;
}
