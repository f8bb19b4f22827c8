// The event sink that components publish facts to. Invariant checkers and trace writers subscribe;
// publishing to a bus with no subscribers costs one length check.

export type Subscriber<F> = (fact: F) => void;

export class Bus<F> {
  private readonly subscribers: Subscriber<F>[] = [];

  get active(): boolean {
    return this.subscribers.length > 0;
  }

  subscribe(s: Subscriber<F>): void {
    this.subscribers.push(s);
  }

  publish(fact: F): void {
    const subs = this.subscribers;
    for (let i = 0; i < subs.length; i++) (subs[i] as Subscriber<F>)(fact);
  }
}
