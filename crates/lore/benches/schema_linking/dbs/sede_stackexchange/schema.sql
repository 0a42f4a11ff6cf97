-- sede_stackexchange: derived by build.py from hirupert/sede (stackexchange_schema/tables_so.json, data/sede/{val,test}.jsonl); see README.md

CREATE TABLE "Badges" (
  "Id" INTEGER,
  "UserId" INTEGER,
  "Name" TEXT,
  "Date" TIMESTAMP,
  "Class" INTEGER,
  "TagBased" BOOLEAN,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("UserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "CloseAsOffTopicReasonTypes" (
  "Id" INTEGER,
  "IsUniversal" BOOLEAN,
  "InputTitle" TEXT,
  "MarkdownInputGuidance" TEXT,
  "MarkdownPostOwnerGuidance" TEXT,
  "MarkdownPrivilegedUserGuidance" TEXT,
  "MarkdownConcensusDescription" TEXT,
  "CreationDate" TIMESTAMP,
  "CreationModeratorId" INTEGER,
  "ApprovalDate" TIMESTAMP,
  "ApprovalModeratorId" INTEGER,
  "DeactivationDate" TIMESTAMP,
  "DeactivationModeratorId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("CreationModeratorId") REFERENCES "Users" ("Id"),
  FOREIGN KEY ("ApprovalModeratorId") REFERENCES "Users" ("Id"),
  FOREIGN KEY ("DeactivationModeratorId") REFERENCES "Users" ("Id")
);

CREATE TABLE "CloseReasonTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "Comments" (
  "Id" INTEGER,
  "PostId" INTEGER,
  "Score" INTEGER,
  "Text" TEXT,
  "CreationDate" TIMESTAMP,
  "UserDisplayName" TEXT,
  "UserId" INTEGER,
  "ContentLicense" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("UserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "FlagTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "PendingFlags" (
  "Id" INTEGER,
  "FlagTypeId" INTEGER,
  "PostId" INTEGER,
  "CreationDate" TIMESTAMP,
  "CloseReasonTypeId" INTEGER,
  "CloseAsOffTopicReasonTypeId" INTEGER,
  "DuplicateOfQuestionId" INTEGER,
  "BelongsOnBaseHostAddress" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("FlagTypeId") REFERENCES "FlagTypes" ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("CloseReasonTypeId") REFERENCES "CloseReasonTypes" ("Id"),
  FOREIGN KEY ("CloseAsOffTopicReasonTypeId") REFERENCES "CloseAsOffTopicReasonTypes" ("Id")
);

CREATE TABLE "PostFeedback" (
  "Id" INTEGER,
  "PostId" INTEGER,
  "IsAnonymous" BOOLEAN,
  "VoteTypeId" INTEGER,
  "CreationDate" TIMESTAMP,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("VoteTypeId") REFERENCES "VoteTypes" ("Id")
);

CREATE TABLE "PostHistory" (
  "Id" INTEGER,
  "PostHistoryTypeId" INTEGER,
  "PostId" INTEGER,
  "RevisionGUID" TEXT,
  "CreationDate" TIMESTAMP,
  "UserId" INTEGER,
  "UserDisplayName" TEXT,
  "Comment" TEXT,
  "Text" TEXT,
  "ContentLicense" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostHistoryTypeId") REFERENCES "PostHistoryTypes" ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("UserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "PostHistoryTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "PostLinks" (
  "Id" INTEGER,
  "CreationDate" TIMESTAMP,
  "PostId" INTEGER,
  "RelatedPostId" INTEGER,
  "LinkTypeId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("RelatedPostId") REFERENCES "Posts" ("Id")
);

CREATE TABLE "PostNotices" (
  "Id" INTEGER,
  "PostId" INTEGER,
  "PostNoticeTypeId" INTEGER,
  "CreationDate" TIMESTAMP,
  "DeletionDate" TIMESTAMP,
  "ExpiryDate" TIMESTAMP,
  "Body" TEXT,
  "OwnerUserId" INTEGER,
  "DeletionUserId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("PostNoticeTypeId") REFERENCES "PostNoticeTypes" ("Id"),
  FOREIGN KEY ("OwnerUserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "PostNoticeTypes" (
  "Id" INTEGER,
  "ClassId" INTEGER,
  "Name" TEXT,
  "Body" TEXT,
  "IsHidden" BOOLEAN,
  "Predefined" BOOLEAN,
  "PostNoticeDurationId" INTEGER,
  PRIMARY KEY ("Id")
);

CREATE TABLE "Posts" (
  "Id" INTEGER,
  "PostTypeId" INTEGER,
  "AcceptedAnswerId" INTEGER,
  "ParentId" INTEGER,
  "CreationDate" TIMESTAMP,
  "DeletionDate" TIMESTAMP,
  "Score" INTEGER,
  "ViewCount" INTEGER,
  "Body" TEXT,
  "OwnerUserId" INTEGER,
  "OwnerDisplayName" TEXT,
  "LastEditorUserId" INTEGER,
  "LastEditorDisplayName" TEXT,
  "LastEditDate" TIMESTAMP,
  "LastActivityDate" TIMESTAMP,
  "Title" TEXT,
  "Tags" TEXT,
  "AnswerCount" INTEGER,
  "CommentCount" INTEGER,
  "FavoriteCount" INTEGER,
  "ClosedDate" TIMESTAMP,
  "CommunityOwnedDate" TIMESTAMP,
  "ContentLicense" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostTypeId") REFERENCES "PostTypes" ("Id"),
  FOREIGN KEY ("ParentId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("OwnerUserId") REFERENCES "Users" ("Id"),
  FOREIGN KEY ("LastEditorUserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "PostsWithDeleted" (
  "Id" INTEGER,
  "PostTypeId" INTEGER,
  "AcceptedAnswerId" INTEGER,
  "ParentId" INTEGER,
  "CreationDate" TIMESTAMP,
  "DeletionDate" TIMESTAMP,
  "Score" INTEGER,
  "ViewCount" INTEGER,
  "Body" TEXT,
  "OwnerUserId" INTEGER,
  "OwnerDisplayName" TEXT,
  "LastEditorUserId" INTEGER,
  "LastEditorDisplayName" TEXT,
  "LastEditDate" TIMESTAMP,
  "LastActivityDate" TIMESTAMP,
  "Title" TEXT,
  "Tags" TEXT,
  "AnswerCount" INTEGER,
  "CommentCount" INTEGER,
  "FavoriteCount" INTEGER,
  "ClosedDate" TIMESTAMP,
  "CommunityOwnedDate" TIMESTAMP,
  "ContentLicense" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostTypeId") REFERENCES "PostTypes" ("Id"),
  FOREIGN KEY ("AcceptedAnswerId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("ParentId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("OwnerUserId") REFERENCES "Users" ("Id"),
  FOREIGN KEY ("LastEditorUserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "PostTags" (
  "PostId" INTEGER,
  "TagId" INTEGER,
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("TagId") REFERENCES "Tags" ("Id")
);

CREATE TABLE "PostTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "ReviewRejectionReasons" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  "PostTypeId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostTypeId") REFERENCES "PostTypes" ("Id")
);

CREATE TABLE "ReviewTaskResults" (
  "Id" INTEGER,
  "ReviewTaskId" INTEGER,
  "ReviewTaskResultTypeId" INTEGER,
  "CreationDate" TIMESTAMP,
  "RejectionReasonId" INTEGER,
  "Comment" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("ReviewTaskId") REFERENCES "ReviewTasks" ("Id"),
  FOREIGN KEY ("ReviewTaskResultTypeId") REFERENCES "ReviewTaskResultTypes" ("Id")
);

CREATE TABLE "ReviewTaskResultTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "ReviewTasks" (
  "Id" INTEGER,
  "ReviewTaskTypeId" INTEGER,
  "CreationDate" TIMESTAMP,
  "DeletionDate" TIMESTAMP,
  "ReviewTaskStateId" INTEGER,
  "PostId" INTEGER,
  "SuggestedEditId" INTEGER,
  "CompletedByReviewTaskId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("ReviewTaskTypeId") REFERENCES "ReviewTaskTypes" ("Id"),
  FOREIGN KEY ("ReviewTaskStateId") REFERENCES "ReviewTaskStates" ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("SuggestedEditId") REFERENCES "SuggestedEdits" ("Id")
);

CREATE TABLE "ReviewTaskStates" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "ReviewTaskTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  "Description" TEXT,
  PRIMARY KEY ("Id")
);

CREATE TABLE "SuggestedEdits" (
  "Id" INTEGER,
  "PostId" INTEGER,
  "CreationDate" TIMESTAMP,
  "ApprovalDate" TIMESTAMP,
  "RejectionDate" TIMESTAMP,
  "OwnerUserId" INTEGER,
  "Comment" TEXT,
  "Text" TEXT,
  "Title" TEXT,
  "Tags" TEXT,
  "RevisionGUID" TEXT,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("OwnerUserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "SuggestedEditVotes" (
  "Id" INTEGER,
  "SuggestedEditId" INTEGER,
  "UserId" INTEGER,
  "VoteTypeId" INTEGER,
  "CreationDate" TIMESTAMP,
  "TargetUserId" INTEGER,
  "TargetRepChange" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("SuggestedEditId") REFERENCES "SuggestedEdits" ("Id"),
  FOREIGN KEY ("UserId") REFERENCES "Users" ("Id"),
  FOREIGN KEY ("VoteTypeId") REFERENCES "VoteTypes" ("Id")
);

CREATE TABLE "Tags" (
  "Id" INTEGER,
  "TagName" TEXT,
  "Count" INTEGER,
  "ExcerptPostId" INTEGER,
  "WikiPostId" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("ExcerptPostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("WikiPostId") REFERENCES "Posts" ("Id")
);

CREATE TABLE "TagSynonyms" (
  "Id" INTEGER,
  "SourceTagName" TEXT,
  "TargetTagName" TEXT,
  "CreationDate" TIMESTAMP,
  "OwnerUserId" INTEGER,
  "AutoRenameCount" INTEGER,
  "LastAutoRename" TIMESTAMP,
  "Score" INTEGER,
  "ApprovedByUserId" INTEGER,
  "ApprovalDate" TIMESTAMP,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("OwnerUserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "Users" (
  "Id" INTEGER,
  "Reputation" INTEGER,
  "CreationDate" TIMESTAMP,
  "DisplayName" TEXT,
  "LastAccessDate" TIMESTAMP,
  "WebsiteUrl" TEXT,
  "Location" TEXT,
  "AboutMe" TEXT,
  "Views" INTEGER,
  "UpVotes" INTEGER,
  "DownVotes" INTEGER,
  "ProfileImageUrl" TEXT,
  "EmailHash" TEXT,
  "AccountId" INTEGER,
  PRIMARY KEY ("Id")
);

CREATE TABLE "Votes" (
  "Id" INTEGER,
  "PostId" INTEGER,
  "VoteTypeId" INTEGER,
  "UserId" INTEGER,
  "CreationDate" TIMESTAMP,
  "BountyAmount" INTEGER,
  PRIMARY KEY ("Id"),
  FOREIGN KEY ("PostId") REFERENCES "Posts" ("Id"),
  FOREIGN KEY ("VoteTypeId") REFERENCES "VoteTypes" ("Id"),
  FOREIGN KEY ("UserId") REFERENCES "Users" ("Id")
);

CREATE TABLE "VoteTypes" (
  "Id" INTEGER,
  "Name" TEXT,
  PRIMARY KEY ("Id")
);

