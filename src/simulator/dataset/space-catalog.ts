// The building blocks of the simulated space: tool definitions, the workflow node library,
// agent templates, company names and models. Pure data; space-setup.ts turns it into seeded records.

export type ConnectionKey = 'shop' | 'calendar' | 'helpdesk';

export interface ToolDef {
  slug: string;
  name: string;
  description: string;
  connection: ConnectionKey;
  method: string;
  url: string;
  params: { name: string; value: string; required: boolean }[];
  fields: string[];
  limit: number;
  remember: string[];
  announce: string | null;
}

export const TOOL_DEFS: readonly ToolDef[] = [
  {
    slug: 'find_customer',
    name: 'Find customer',
    description:
      'Looks up the caller by phone number or e-mail. Use it at the start to greet known customers by name. Does not change anything.',
    connection: 'shop',
    method: 'GET',
    url: '/customers/search?phone={{phone}}',
    params: [{ name: 'phone', value: "The caller's phone number in international format", required: true }],
    fields: ['customer_id', 'name', 'tier'],
    limit: 1,
    remember: ['customer_id', 'name'],
    announce: null,
  },
  {
    slug: 'lookup_order',
    name: 'Look up order',
    description:
      'Returns status, items and total of one order. Use it when the caller asks about an order and gives its number (like A-12345). Does not cancel or change orders.',
    connection: 'shop',
    method: 'GET',
    url: '/orders/{{order_number}}',
    params: [{ name: 'order_number', value: 'The order number, like A-12345', required: true }],
    fields: ['status', 'items', 'total'],
    limit: 5,
    remember: ['status'],
    announce: 'One moment, I am looking up your order.',
  },
  {
    slug: 'track_shipment',
    name: 'Track shipment',
    description: 'Returns the tracking events and expected delivery of a parcel. Use it for "where is my parcel" questions.',
    connection: 'shop',
    method: 'GET',
    url: '/shipments/{{tracking_id}}',
    params: [{ name: 'tracking_id', value: 'Tracking number or order number', required: true }],
    fields: ['carrier', 'events', 'eta'],
    limit: 10,
    remember: ['eta'],
    announce: 'Let me check where your parcel is.',
  },
  {
    slug: 'create_return',
    name: 'Create return',
    description: 'Registers a return for items of an order and e-mails a label. Use only after the caller confirmed the items.',
    connection: 'shop',
    method: 'POST',
    url: '/returns',
    params: [
      { name: 'order_number', value: 'The order number', required: true },
      { name: 'reason', value: 'Why the items are returned, in the words of the caller', required: false },
    ],
    fields: ['return_id', 'label_url'],
    limit: 1,
    remember: ['return_id'],
    announce: 'I am registering the return now.',
  },
  {
    slug: 'check_availability',
    name: 'Check availability',
    description: 'Lists free appointment slots for a day. Use it before booking or moving an appointment.',
    connection: 'calendar',
    method: 'GET',
    url: '/slots?date={{date}}',
    params: [{ name: 'date', value: 'The wished day as YYYY-MM-DD', required: true }],
    fields: ['slots'],
    limit: 8,
    remember: [],
    announce: 'Let me see which times are free.',
  },
  {
    slug: 'book_appointment',
    name: 'Book appointment',
    description: 'Books one slot for the caller. Use only after the caller chose a slot from check_availability.',
    connection: 'calendar',
    method: 'POST',
    url: '/appointments',
    params: [
      { name: 'slot', value: 'The chosen slot as returned by check_availability', required: true },
      { name: 'name', value: "The caller's full name", required: true },
    ],
    fields: ['appointment_id', 'confirmed'],
    limit: 1,
    remember: ['appointment_id'],
    announce: 'I am booking that for you.',
  },
  {
    slug: 'reschedule_appointment',
    name: 'Reschedule appointment',
    description: 'Moves an existing appointment to a new free slot.',
    connection: 'calendar',
    method: 'PATCH',
    url: '/appointments/{{appointment_id}}',
    params: [
      { name: 'appointment_id', value: 'The id of the existing appointment', required: true },
      { name: 'new_slot', value: 'The new slot as returned by check_availability', required: true },
    ],
    fields: ['ok', 'previous_slot'],
    limit: 1,
    remember: [],
    announce: 'I am moving your appointment.',
  },
  {
    slug: 'get_invoice',
    name: 'Get invoice',
    description: 'Returns amount, due date and payment state of an invoice. Read-only.',
    connection: 'helpdesk',
    method: 'GET',
    url: '/invoices/{{invoice_number}}',
    params: [{ name: 'invoice_number', value: 'The invoice number, like INV-2024-0042', required: true }],
    fields: ['amount', 'currency', 'due_date', 'paid'],
    limit: 1,
    remember: ['amount'],
    announce: 'Let me pull up that invoice.',
  },
  {
    slug: 'send_payment_link',
    name: 'Send payment link',
    description: 'Sends a payment link for an open invoice by SMS or e-mail.',
    connection: 'helpdesk',
    method: 'POST',
    url: '/payment-links',
    params: [
      { name: 'invoice_number', value: 'The invoice number', required: true },
      { name: 'channel', value: 'sms or email, as the caller prefers', required: true },
    ],
    fields: ['url'],
    limit: 1,
    remember: [],
    announce: 'I am sending you the link now.',
  },
  {
    slug: 'create_ticket',
    name: 'Create ticket',
    description: 'Opens a support ticket so a human calls back. Use when you cannot solve the request yourself.',
    connection: 'helpdesk',
    method: 'POST',
    url: '/tickets',
    params: [
      { name: 'subject', value: 'One line about the request', required: true },
      { name: 'body', value: 'What the caller needs, with all details given', required: true },
    ],
    fields: ['ticket_id'],
    limit: 1,
    remember: ['ticket_id'],
    announce: 'I am writing that down for my colleagues.',
  },
];

export type NodeType = 'greeting' | 'conversation' | 'tool' | 'knowledge' | 'transfer' | 'end';

export interface NodeDef {
  type: NodeType;
  title: string;
  tools?: string[];
}

export const NODE_LIBRARY: Record<string, NodeDef> = {
  greeting: { type: 'greeting', title: 'Greeting' },
  identify_caller: { type: 'tool', title: 'Identify the caller', tools: ['find_customer'] },
  route_intent: { type: 'conversation', title: 'Find out what the caller needs' },
  lookup_order: { type: 'tool', title: 'Order status', tools: ['lookup_order'] },
  track_shipment: { type: 'tool', title: 'Parcel tracking', tools: ['track_shipment'] },
  start_return: { type: 'tool', title: 'Start a return', tools: ['create_return'] },
  faq: { type: 'knowledge', title: 'Answer from the knowledge base' },
  book_appointment: { type: 'tool', title: 'Book an appointment', tools: ['check_availability', 'book_appointment'] },
  reschedule_appointment: {
    type: 'tool',
    title: 'Move an appointment',
    tools: ['check_availability', 'reschedule_appointment'],
  },
  check_invoice: { type: 'tool', title: 'Invoice question', tools: ['get_invoice'] },
  update_payment: { type: 'tool', title: 'Payment link', tools: ['send_payment_link'] },
  take_message: { type: 'tool', title: 'Take a message', tools: ['create_ticket'] },
  anything_else: { type: 'conversation', title: 'Anything else?' },
  transfer_to_human: { type: 'transfer', title: 'Transfer to a human' },
  end: { type: 'end', title: 'Goodbye' },
};

export interface AgentTemplate {
  key: string;
  name: string;
  description: string | null;
  language: string;
  intents: string[];
  identify: boolean;
  transfer: boolean;
  chatShare: number;
  weight: number;
  firstMessage: string;
  role: string;
}

export const ACTIVE_TEMPLATES: readonly AgentTemplate[] = [
  {
    key: 'order_support',
    name: 'Order Support',
    description: 'Order status, parcels and returns',
    language: 'en',
    intents: ['lookup_order', 'track_shipment', 'start_return', 'faq'],
    identify: true,
    transfer: true,
    chatShare: 0.35,
    weight: 6,
    firstMessage: 'Hi, this is the order support line of {company}. How can I help you today?',
    role: 'You help customers with orders, deliveries and returns.',
  },
  {
    key: 'web_chat',
    name: 'Website Chat',
    description: 'Chat widget on the shop pages',
    language: 'en',
    intents: ['faq', 'track_shipment', 'lookup_order'],
    identify: false,
    transfer: true,
    chatShare: 1,
    weight: 5,
    firstMessage: 'Hello 👋 I am the {company} assistant. Ask me anything about your order!',
    role: 'You answer visitors of the web shop in the chat widget.',
  },
  {
    key: 'front_desk',
    name: 'Front Desk',
    description: null,
    language: 'en',
    intents: ['faq', 'book_appointment', 'lookup_order'],
    identify: false,
    transfer: true,
    chatShare: 0.25,
    weight: 5,
    firstMessage: 'Good day, {company}, front desk speaking. What can I do for you?',
    role: 'You are the first point of contact and route callers.',
  },
  {
    key: 'booking',
    name: 'Booking Assistant',
    description: 'Appointments in the showroom',
    language: 'en',
    intents: ['book_appointment', 'reschedule_appointment', 'faq'],
    identify: true,
    transfer: true,
    chatShare: 0.2,
    weight: 4,
    firstMessage: 'Hello, you are speaking with the booking assistant of {company}.',
    role: 'You book and move showroom appointments.',
  },
  {
    key: 'after_hours',
    name: 'After-hours Line',
    description: 'Takes messages outside business hours; no human to transfer to',
    language: 'en',
    intents: ['faq', 'take_message'],
    identify: false,
    transfer: false,
    chatShare: 0,
    weight: 2,
    firstMessage: 'Thanks for calling {company}. Our team is away, but I can help or take a message.',
    role: 'You answer simple questions and take messages at night.',
  },
  {
    key: 'zurich',
    name: 'Kundenservice Zürich',
    description: 'Deutschsprachige Linie für die Schweiz',
    language: 'de',
    intents: ['lookup_order', 'faq', 'take_message'],
    identify: true,
    transfer: true,
    chatShare: 0.4,
    weight: 2,
    firstMessage: 'Grüezi, Kundenservice {company}. Wie kann ich Ihnen helfen?',
    role: 'Du hilfst Kundinnen und Kunden aus der Schweiz auf Deutsch.',
  },
];

export const PAUSED_TEMPLATE: AgentTemplate = {
  key: 'billing',
  name: 'Billing Helper',
  description: 'Invoices and payment links (paused while billing moves to the new system)',
  language: 'en',
  intents: ['check_invoice', 'update_payment', 'faq'],
  identify: true,
  transfer: true,
  chatShare: 0.3,
  weight: 3,
  firstMessage: 'Hi, billing team of {company}. Do you have your invoice number at hand?',
  role: 'You answer questions about invoices and payments.',
};

export const DRAFT_TEMPLATE: AgentTemplate = {
  key: 'returns_pilot',
  name: 'Returns Pilot',
  description: 'New returns flow, not published yet',
  language: 'en',
  intents: ['start_return', 'faq'],
  identify: false,
  transfer: true,
  chatShare: 0.5,
  weight: 0,
  firstMessage: 'Hi! I can help you return something from {company}.',
  role: 'You help customers return items.',
};

export const COMPANIES: readonly (readonly [string, string])[] = [
  ['acme', 'Acme'],
  ['globex', 'Globex'],
  ['initech', 'Initech'],
  ['nordwind', 'Nordwind'],
  ['hooli', 'Hooli'],
  ['umbrella', 'Umbrella'],
  ['soylent', 'Soylent'],
  ['vandelay', 'Vandelay'],
];

export const SLUG_SUFFIXES = ['support', 'care', 'service', 'help'] as const;

export const LLM_OPTIONS = ['gpt-4o-mini', 'gpt-4.1', 'claude-sonnet-4', 'mistral-large'] as const;
