import type { Conversation } from "../api/types";

interface Props {
  conversations: Conversation[];
  activeId: number | null;
  onSelect(id: number): void;
  onNew(): void;
}

export function ConversationList({ conversations, activeId, onSelect, onNew }: Props) {
  return (
    <aside className="history" aria-label="Gesprekken">
      <button type="button" onClick={onNew}>
        Nieuw gesprek
      </button>
      <ul>
        {conversations.map((conversation) => (
          <li key={conversation.id}>
            <button
              type="button"
              aria-current={conversation.id === activeId ? "page" : undefined}
              onClick={() => onSelect(conversation.id)}
            >
              {conversation.title || "Gesprek"}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
