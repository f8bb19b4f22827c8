// Builds dist/ once before the CLI tests spawn the real binary, so they never run a stale build.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
