// The history: conversations grouped by when they were last used (vandaag, gisteren, …), titles cut at a word.
import type { Conversation } from "../api/types";
import { cutAtWord, dayGroup } from "../text/dutch";

interface Props {
  conversations: Conversation[];
  activeId: number | null;
  onSelect(id: number): void;
  onNew(): void;
}

export const TITLE_LENGTH = 60;

/** Conversations in their groups, newest group first (the API lists the most recently used first). */
export function groupByDay(conversations: readonly Conversation[], now = new Date()): [string, Conversation[]][] {
  const groups = new Map<string, Conversation[]>();
  for (const conversation of conversations) {
    const group = dayGroup(new Date(conversation.updated_at || conversation.created_at), now);
    groups.set(group, [...(groups.get(group) ?? []), conversation]);
  }
  return [...groups.entries()];
}

export function ConversationList({ conversations, activeId, onSelect, onNew }: Props) {
  return (
    <aside className="history" aria-label="Gesprekken">
      <button type="button" onClick={onNew}>
        Nieuw gesprek
      </button>
      {groupByDay(conversations).map(([group, members]) => (
        <section key={group} aria-label={group}>
          <h2 className="history-group">{group}</h2>
          <ul>
            {members.map((conversation) => (
              <li key={conversation.id}>
                <button
                  type="button"
                  aria-current={conversation.id === activeId ? "page" : undefined}
                  title={conversation.title}
                  onClick={() => onSelect(conversation.id)}
                >
                  {cutAtWord(conversation.title || "Gesprek", TITLE_LENGTH)}
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </aside>
  );
}
